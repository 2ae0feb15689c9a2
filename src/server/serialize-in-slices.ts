import type { Pause } from '../engine/parse-in-slices.js';

/** Text gathered before it is encoded into a chunk of the answer. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Text gathered into UTF-8 chunks of about CHUNK_CHARS characters, never split inside a JSON value
 * (so never inside a character). `own`: each chunk in a buffer of its own, that can be moved to
 * another thread (`Buffer.from` may hand out a slice of a shared pool).
 */
class ChunkWriter {
  readonly chunks: Buffer[] = [];
  private pending: string[] = [];
  private pendingChars = 0;

  constructor(private readonly own = false) {}

  write(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= CHUNK_CHARS) this.flush();
  }

  /** Chunks written elsewhere, after what is pending. */
  insert(chunks: readonly Uint8Array[]): void {
    this.flush();
    for (const chunk of chunks) this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    if (this.own) {
      // Never pooled: moving a pooled slice's buffer would take the whole pool with it.
      const chunk = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
      chunk.write(text);
      this.chunks.push(chunk);
    } else this.chunks.push(Buffer.from(text));
    this.pending = [];
    this.pendingChars = 0;
  }
}

/** Writes `object` as `JSON.stringify` does, `writeList` writing the items of `object[key]`. */
async function writeObject(
  writer: ChunkWriter,
  object: Record<string, unknown>,
  key: string,
  writeList: () => Promise<void> | void,
): Promise<void> {
  let first = true;
  writer.write('{');
  for (const [name, value] of Object.entries(object)) {
    if (name === key) {
      writer.write(`${first ? '' : ','}${JSON.stringify(name)}:[`);
      await writeList();
      writer.write(']');
      first = false;
      continue;
    }
    // As in JSON.stringify: a member with no JSON form is left out.
    const text = JSON.stringify(value);
    if (text === undefined) continue;
    writer.write(`${first ? '' : ','}${JSON.stringify(name)}:${text}`);
    first = false;
  }
  writer.write('}');
  writer.flush();
}

/** Writes each item's JSON (`null` for one with no JSON form, as JSON.stringify does), comma-separated. */
const itemText = (index: number, value: unknown): string =>
  `${index === 0 ? '' : ','}${JSON.stringify(value) ?? 'null'}`;

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
  const writer = new ChunkWriter();
  await writeObject(writer, object, key, async () => {
    let index = 0;
    for (const item of object[key] as readonly T[]) {
      const wait = pause();
      if (wait) await wait;
      writer.write(itemText(index++, toItem(item)));
    }
  });
  return writer.chunks;
}

/**
 * The items of a list as `serializeInSlices` writes them between its brackets, in chunks of about
 * 64 KB, each a buffer of its own that can be moved to another thread: a large PUT's echo, written
 * where its messages were prepared. Written in one step (for a thread that need not yield).
 */
export function serializeListItems<T>(items: readonly T[], toItem: (item: T) => unknown): Uint8Array[] {
  const writer = new ChunkWriter(true);
  for (const [index, item] of items.entries()) writer.write(itemText(index, toItem(item)));
  writer.flush();
  return writer.chunks;
}

/**
 * `serializeInSlices(object, key, …)` with `object[key]`'s items already serialized
 * (`serializeListItems`): the same bytes, the list's chunks written as they are.
 */
export async function serializeAroundList(
  object: Record<string, unknown>,
  key: string,
  listChunks: readonly Uint8Array[],
): Promise<Buffer[]> {
  const writer = new ChunkWriter();
  await writeObject(writer, object, key, () => writer.insert(listChunks));
  return writer.chunks;
}
