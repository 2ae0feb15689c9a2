import { deserialize, serialize } from 'node:v8';
import { createEventLoopSlicer } from '../../core/event-loop-slicer.js';

/**
 * Large arrays cross the thread boundary in pieces. Structured clone copies a message in one
 * synchronous step: 100,000 messages take 60–160 ms to serialize and 140–270 ms to deserialize on
 * the 2-vCPU development machine, a stall of every request on the calling thread. An array of more
 * than LARGE_ARRAY items, given as an argument or as a property of one (`write.messages`), or
 * returned the same way (`readMessages`, `listMemories().memories`), is therefore serialized in
 * chunks of CHUNK_ITEMS items, each a transferable buffer, and the calling thread yields to the
 * event loop between chunks once a slice of `sliceMs` has passed.
 */
export const LARGE_ARRAY = 2_000;
const CHUNK_ITEMS = 1_000;
/**
 * An array of fewer items is still sent in chunks when its strings come to more than this many
 * characters: 300 memory versions of 20,000 characters (6 MB) were one deserialization of ~25 ms.
 * Chunks then also end after CHUNK_CHARS characters.
 */
export const LARGE_ARRAY_CHARS = 1_048_576;
const CHUNK_CHARS = 262_144;

/** Marks an encoded array; a string key, because structured clone drops symbol keys. */
const MARK = '\u0000engram.chunkedArray';
interface ChunkedArray {
  [MARK]: true;
  chunks: Uint8Array[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
const isLargeArray = (value: unknown): value is unknown[] =>
  Array.isArray(value) &&
  (value.length > LARGE_ARRAY || (value.length > 1 && stringChars(value) > LARGE_ARRAY_CHARS));

/**
 * The characters of the strings an item holds, itself or as its own properties (a record's text,
 * a message's content): what its structured clone mostly costs. Deeper values are not counted.
 */
function itemChars(item: unknown): number {
  if (typeof item === 'string') return item.length;
  if (!isPlainObject(item)) return 0;
  let chars = 0;
  for (const key in item) {
    const property = item[key];
    if (typeof property === 'string') chars += property.length;
  }
  return chars;
}

/** `itemChars` summed over the items of `items`, stopping once past LARGE_ARRAY_CHARS. */
function stringChars(items: readonly unknown[]): number {
  let chars = 0;
  for (const item of items) {
    chars += itemChars(item);
    if (chars > LARGE_ARRAY_CHARS) break;
  }
  return chars;
}
const isChunked = (value: unknown): value is ChunkedArray => isPlainObject(value) && value[MARK] === true;

/** Whether `value` holds an array to send in chunks (itself, or one of its own properties). */
export function holdsLargeArray(value: unknown): boolean {
  if (isLargeArray(value)) return true;
  return isPlainObject(value) && Object.values(value).some(isLargeArray);
}

/** The buffers of the encoded arrays in `value` (itself, or its own properties), to transfer. */
export function chunkedBuffers(value: unknown): ArrayBuffer[] {
  if (isChunked(value)) return value.chunks.map((chunk) => chunk.buffer as ArrayBuffer);
  if (!isPlainObject(value)) return [];
  return Object.values(value).flatMap((property) =>
    isChunked(property) ? property.chunks.map((chunk) => chunk.buffer as ArrayBuffer) : [],
  );
}

/** Whether `value` holds an encoded array (itself, or one of its own properties). */
export function holdsChunkedArray(value: unknown): boolean {
  if (isChunked(value)) return true;
  return isPlainObject(value) && Object.values(value).some(isChunked);
}

/**
 * Yields to the event loop once `sliceMs` have passed (never when Infinity), in the turn order
 * every other sliced work shares (`createEventLoopSlicer`): with an immediate of its own, a decode
 * resumed in the same check phase as another request's slice, holding the loop for both.
 */
function slicer(sliceMs: number): () => Promise<void> {
  const { pause } = createEventLoopSlicer(sliceMs);
  return async () => {
    const wait = pause();
    if (wait) await wait;
  };
}

async function encodeArray(items: unknown[], transfer: ArrayBuffer[], pause: () => Promise<void>) {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < items.length; ) {
    // At most CHUNK_ITEMS items and about CHUNK_CHARS characters (always at least one item).
    let end = start + 1;
    let chars = itemChars(items[start]);
    while (end < items.length && end - start < CHUNK_ITEMS && chars < CHUNK_CHARS)
      chars += itemChars(items[end++]);
    const bytes = serialize(items.slice(start, end));
    start = end;
    // A Buffer may share a pooled ArrayBuffer: copy into one of its own before transferring it.
    const chunk = new Uint8Array(bytes.byteLength);
    chunk.set(bytes);
    chunks.push(chunk);
    transfer.push(chunk.buffer);
    await pause();
  }
  return { [MARK]: true, chunks } satisfies ChunkedArray;
}

async function decodeArray(encoded: ChunkedArray, pause: () => Promise<void>): Promise<unknown[]> {
  const items: unknown[] = [];
  for (const chunk of encoded.chunks) {
    for (const item of deserialize(chunk) as unknown[]) items.push(item);
    await pause();
  }
  return items;
}

/**
 * Encodes the large arrays in `value` (itself, or its own properties), collecting the buffers to
 * transfer. Other values are returned as they are.
 */
export async function encodeLargeArrays(
  value: unknown,
  transfer: ArrayBuffer[],
  sliceMs: number,
): Promise<unknown> {
  const pause = slicer(sliceMs);
  if (isLargeArray(value)) return encodeArray(value, transfer, pause);
  if (!isPlainObject(value) || !Object.values(value).some(isLargeArray)) return value;
  const encoded: Record<string, unknown> = { ...value };
  for (const [key, property] of Object.entries(value)) {
    if (isLargeArray(property)) encoded[key] = await encodeArray(property, transfer, pause);
  }
  return encoded;
}

/** The inverse of `encodeLargeArrays`. */
export async function decodeLargeArrays(value: unknown, sliceMs: number): Promise<unknown> {
  const pause = slicer(sliceMs);
  if (isChunked(value)) return decodeArray(value, pause);
  if (!isPlainObject(value) || !Object.values(value).some(isChunked)) return value;
  const decoded: Record<string, unknown> = { ...value };
  for (const [key, property] of Object.entries(value)) {
    if (isChunked(property)) decoded[key] = await decodeArray(property, pause);
  }
  return decoded;
}
