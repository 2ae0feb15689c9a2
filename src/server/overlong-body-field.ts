import * as json from './json-codes.js';

/** The most items (at least 1) each top-level array field of a route's JSON body may hold, by field name. */
export type BodyArrayLimits = Readonly<Record<string, number>>;

/** A top-level list found over its limit. */
export interface OverlongArray {
  field: string;
  limit: number;
}

/** Bytes scanned between yields to the event loop (~1 ms of structural bytes, warm). */
const SCAN_SLICE_BYTES = 64 * 1024;

/** Bytes of a string looked at one by one before a native search takes over. */
const PROBE_BYTES = 16;

/** Longest key (in bytes, quotes excluded) worth decoding: the limited fields have short names. */
const MAX_KEY_BYTES = 256;

/** Counts a JSON body's top-level lists as its bytes arrive; see `createBodyArrayCounter`. */
export interface BodyArrayCounter {
  /** Reads the next bytes of the body: the list found over its limit so far, or null. */
  feed(chunk: Uint8Array): OverlongArray | null;
}

/**
 * Finds a top-level array field of a JSON object body holding more items than its limit, reading
 * the raw bytes once, chunk by chunk as they arrive, before anything parses them: a million-item
 * list is refused after the first `limit + 1` items instead of being received whole, parsed (one
 * uninterruptible `JSON.parse`), validated and dropped. Counts the commas directly inside the
 * array (items = commas + 1), so the cost is linear in the bytes read and nothing is allocated per
 * item. Structural characters are ASCII, and UTF-8 never uses ASCII bytes inside a multi-byte
 * character, so bytes can be scanned without decoding; inside a string only the next quote or
 * backslash matters, found with a native search. A body that is not JSON just finds nothing (the
 * parser reports it).
 */
export function createBodyArrayCounter(limits: BodyArrayLimits): BodyArrayCounter {
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** In the top-level object, a string now would be a key (after `{` or `,`), not a value. */
  let expectKey = false;
  /** The bytes of the top-level key being read (null when none is, or it is too long to matter). */
  let keyBytes: number[] | null = null;
  let lastKey: string | null = null;
  /** The key whose value comes next in the top-level object, when it has a limit. */
  let key: string | null = null;
  let counting: OverlongArray | null = null;
  let commas = 0;
  let found: OverlongArray | null = null;

  const keep = (chunk: Uint8Array, from: number, to: number) => {
    if (keyBytes === null) return;
    if (keyBytes.length + (to - from) > MAX_KEY_BYTES) keyBytes = null;
    else for (let index = from; index < to; index++) keyBytes.push(chunk[index] as number);
  };

  const feed = (chunk: Uint8Array): OverlongArray | null => {
    if (found) return found;
    // Where the next quote and backslash are in this chunk, once searched for: reused until passed.
    let nextQuote = -1;
    let nextBackslash = -1;
    for (let index = 0; index < chunk.length; index++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          keep(chunk, index, index + 1);
          continue;
        }
        // A short string ends within a few bytes: look at them. Past those, jump to the next quote
        // or backslash with a native search (a 900 KB string then costs microseconds).
        let next = -1;
        const probeEnd = Math.min(chunk.length, index + PROBE_BYTES);
        for (let probe = index; probe < probeEnd; probe++) {
          const byte = chunk[probe];
          if (byte === json.QUOTE || byte === json.BACKSLASH) {
            next = probe;
            break;
          }
        }
        if (next === -1) {
          if (nextQuote < probeEnd) nextQuote = nextIndex(chunk, json.QUOTE, probeEnd);
          if (nextBackslash < probeEnd) nextBackslash = nextIndex(chunk, json.BACKSLASH, probeEnd);
          next = Math.min(nextQuote, nextBackslash);
        }
        keep(chunk, index, Math.min(next + 1, chunk.length));
        if (next >= chunk.length) break;
        index = next;
        if (chunk[next] === json.BACKSLASH) escaped = true;
        else {
          inString = false;
          if (keyBytes !== null) lastKey = decodeKey(keyBytes, limits);
          keyBytes = null;
        }
        continue;
      }
      switch (chunk[index]) {
        case json.QUOTE:
          inString = true;
          // The opening quote is kept: the key is decoded as the JSON string it is.
          keyBytes = depth === 1 && expectKey ? [json.QUOTE] : null;
          lastKey = null;
          break;
        case json.COLON:
          if (depth === 1) {
            key = lastKey;
            expectKey = false;
          }
          break;
        case json.COMMA:
          if (depth === 1) {
            key = null;
            expectKey = true;
          } else if (depth === 2 && counting && ++commas >= counting.limit) {
            found = counting;
            return found;
          }
          break;
        case json.OPEN_ARRAY:
        case json.OPEN_OBJECT:
          depth++;
          if (depth === 1) expectKey = chunk[index] === json.OPEN_OBJECT;
          if (chunk[index] === json.OPEN_ARRAY && depth === 2 && key !== null) {
            counting = { field: key, limit: limits[key] ?? Number.POSITIVE_INFINITY };
            commas = 0;
          }
          break;
        case json.CLOSE_ARRAY:
        case json.CLOSE_OBJECT:
          if (depth === 2) counting = null;
          depth--;
          break;
      }
    }
    return null;
  };
  return { feed };
}

/** The position of the next `byte` from `from` on, or the chunk's length when there is none. */
function nextIndex(chunk: Uint8Array, byte: number, from: number): number {
  const position = chunk.indexOf(byte, from);
  return position === -1 ? chunk.length : position;
}

/** A key's bytes (quotes included) decoded as JSON does, when `limits` names it; else null. */
function decodeKey(bytes: number[], limits: BodyArrayLimits): string | null {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return null;
  }
  return typeof key === 'string' && Object.hasOwn(limits, key) ? key : null;
}

/**
 * `createBodyArrayCounter` over a whole body already received, yielding to the event loop every
 * 64 KB. Resolves the field and its limit, or null.
 */
export async function overlongBodyArray(
  body: Uint8Array,
  limits: BodyArrayLimits,
): Promise<OverlongArray | null> {
  const counter = createBodyArrayCounter(limits);
  for (let start = 0; start < body.length; start += SCAN_SLICE_BYTES) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const over = counter.feed(body.subarray(start, start + SCAN_SLICE_BYTES));
    if (over) return over;
  }
  return null;
}
