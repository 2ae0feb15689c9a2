/**
 * Inputs of bench/adversarial.ts (and bench/large-put.ts): a long run without whitespace, a large
 * Markdown document and a PUT body of many short messages.
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
