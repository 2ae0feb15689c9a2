import type { Pause } from '../engine/parse-in-slices.js';

/** Text gathered before it is encoded into a chunk of the answer. */
const CHUNK_CHARS = 64 * 1024;

/**
 * `Buffer.from(JSON.stringify(object))`, byte for byte, as chunks of about 64 KB to write one after
 * another, with `object[key]` (a long array) serialized one item at a time and `pause` before each
 * item, and the text encoded to UTF-8 as it grows: echoing 100,000 messages (about 10 MB) holds no
 * other request, neither while the items are written nor in one join, encoding or copy of the
 * whole (joining the chunks into one buffer took 50–100 ms in one step on the 2-vCPU development
 * machine). `toItem` maps each item first (so the mapped copies never all exist at once).
 */
export async function serializeInSlices<T>(
  object: Record<string, unknown>,
  key: string,
  toItem: (item: T) => unknown,
  pause: Pause,
): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let pending: string[] = [];
  let pendingChars = 0;
  // Items are whole JSON values, so a chunk never ends inside a character (or a surrogate pair).
  const flush = () => {
    chunks.push(Buffer.from(pending.join('')));
    pending = [];
    pendingChars = 0;
  };
  const write = (text: string) => {
    pending.push(text);
    pendingChars += text.length;
    if (pendingChars >= CHUNK_CHARS) flush();
  };
  let first = true;
  write('{');
  for (const [name, value] of Object.entries(object)) {
    if (name === key) {
      write(`${first ? '' : ','}${JSON.stringify(name)}:[`);
      let index = 0;
      for (const item of value as readonly T[]) {
        const wait = pause();
        if (wait) await wait;
        // As in JSON.stringify: an item with no JSON form (undefined, a function) is written null.
        write(`${index++ === 0 ? '' : ','}${JSON.stringify(toItem(item)) ?? 'null'}`);
      }
      write(']');
      first = false;
      continue;
    }
    // As in JSON.stringify: a member with no JSON form is left out.
    const text = JSON.stringify(value);
    if (text === undefined) continue;
    write(`${first ? '' : ','}${JSON.stringify(name)}:${text}`);
    first = false;
  }
  write('}');
  flush();
  return chunks;
}

/**
 * The items of a list as `serializeInSlices` writes them between its brackets (each
 * `JSON.stringify(toItem(item))`, comma-separated), in chunks of about 64 KB, each a buffer of its
 * own that can be moved to another thread: a large PUT's echo, written where its messages were
 * prepared. Written in one step (for a thread that need not yield).
 */
export function serializeListItems<T>(items: readonly T[], toItem: (item: T) => unknown): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let pending: string[] = [];
  let pendingChars = 0;
  const flush = () => {
    const text = Buffer.from(pending.join(''));
    // A Buffer may share a pooled ArrayBuffer: each chunk gets one of its own, to be moved.
    const chunk = new Uint8Array(text.length);
    chunk.set(text);
    chunks.push(chunk);
    pending = [];
    pendingChars = 0;
  };
  for (const [index, item] of items.entries()) {
    const text = `${index === 0 ? '' : ','}${JSON.stringify(toItem(item)) ?? 'null'}`;
    pending.push(text);
    pendingChars += text.length;
    if (pendingChars >= CHUNK_CHARS) flush();
  }
  if (pendingChars > 0) flush();
  return chunks;
}

/**
 * `serializeInSlices(object, key, …)` with `object[key]`'s items already serialized
 * (`serializeListItems`): the same bytes, the list's chunks written as they are.
 */
export function serializeAroundList(
  object: Record<string, unknown>,
  key: string,
  listChunks: readonly Uint8Array[],
): Buffer[] {
  const chunks: Buffer[] = [];
  let text = '{';
  let first = true;
  for (const [name, value] of Object.entries(object)) {
    if (name === key) {
      chunks.push(Buffer.from(`${text}${first ? '' : ','}${JSON.stringify(name)}:[`));
      for (const chunk of listChunks) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
      text = ']';
      first = false;
      continue;
    }
    const member = JSON.stringify(value);
    if (member === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(name)}:${member}`;
    first = false;
  }
  chunks.push(Buffer.from(`${text}}`));
  return chunks;
}
