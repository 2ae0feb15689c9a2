/**
 * Inputs of bench/adversarial.ts (and bench/large-put.ts): a long run without whitespace, a large
 * Markdown document, PUT bodies of many short messages and the text of a memory at its limit.
 */

/** A working-memory PUT body of `count` short messages, alternating user and assistant, dated now. */
export function shortMessages(count: number): {
  messages: { role: string; content: string; created_at: string }[];
} {
  const now = new Date().toISOString();
  const messages = Array.from({ length: count }, (_, index) => ({
    role: index % 2 ? 'assistant' : 'user',
    content: `message ${index}`,
    created_at: now,
  }));
  return { messages };
}

/** Text of `length` characters from a 64-letter alphabet, without whitespace (pseudo-random). */
export function noSpaceRun(length: number, seed = 1): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const parts: string[] = [];
  let state = seed;
  for (let index = 0; index < length; index++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    parts.push(alphabet[state % 64] as string);
  }
  return parts.join('');
}

/** A Markdown document of about `bytes` bytes: sections of paragraphs of varied words. */
export function markdown(bytes: number): string {
  const words = [
    'policy',
    'leave',
    'travel',
    'budget',
    'approval',
    'receipt',
    'manager',
    'deadline',
    'office',
  ];
  const parts: string[] = [];
  for (let section = 0, size = 0; size < bytes; section++) {
    const sentence = (n: number) =>
      `Rule ${section}.${n}: ${words[(section + n) % words.length]} requests for item ${section * 7 + n} go to the ${words[(section * 3 + n) % words.length]} desk.`;
    const part = `## Section ${section}\n\n${sentence(1)} ${sentence(2)}\n\n${sentence(3)} ${sentence(4)}\n\n`;
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

/** The body of a PUT of 1,000,000 messages (30 MB), written in place (Buffer.fill repeats the item). */
export function millionMessages(): Uint8Array {
  const [head, item, tail] = [
    '{"messages":[',
    '{"role":"user","content":"x"},',
    '{"role":"user","content":"x"}]}',
  ];
  const body = Buffer.alloc(head.length + item.length * 999_999 + tail.length);
  body.write(head);
  body.fill(item, head.length, body.length - tail.length);
  body.write(tail, body.length - tail.length);
  return body;
}

/** A memory text of 20,000 characters (the limit) of plain prose, starting with `head`. */
export function longMemoryText(head: string): string {
  const prose = ' Employees book trains for trips under four hours and flights beyond that.';
  return `${head}${prose.repeat(Math.ceil(20_000 / prose.length))}`.slice(0, 20_000);
}
