/** The most items (at least 1) each top-level array field of a route's JSON body may hold, by field name. */
export type BodyArrayLimits = Readonly<Record<string, number>>;

/** Bytes scanned between yields to the event loop (~1 ms of structural bytes, warm). */
const SCAN_SLICE_BYTES = 64 * 1024;

/** Longest key (in bytes, quotes excluded) worth decoding: the limited fields have short names. */
const MAX_KEY_BYTES = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * Finds a top-level array field of a JSON object body holding more items than its limit, reading
 * the raw bytes once, before anything parses them: a million-item list is refused after the first
 * `limit + 1` items instead of being parsed (one uninterruptible `JSON.parse`), validated and
 * dropped. Counts the commas directly inside the array (items = commas + 1), so the cost is linear
 * in the bytes read and nothing is allocated per item; yields to the event loop every 64 KB.
 * Structural characters are ASCII, and UTF-8 never uses ASCII bytes inside a multi-byte
 * character, so bytes can be scanned without decoding. A body that is not JSON just finds nothing
 * (the parser reports it). Resolves the field and its limit, or null.
 */
export async function overlongBodyArray(
  body: Uint8Array,
  limits: BodyArrayLimits,
): Promise<{ field: string; limit: number } | null> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let stringStart = 0;
  let stringEnd = 0;
  /** The key whose value comes next in the top-level object, when it has a limit. */
  let key: string | null = null;
  let counting: { field: string; limit: number } | null = null;
  let commas = 0;
  // Where the next quote and backslash are, found once and reused until passed: linear in all.
  let nextQuote = -1;
  let nextBackslash = -1;
  for (let start = 0; start < body.length; start += SCAN_SLICE_BYTES) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const end = Math.min(body.length, start + SCAN_SLICE_BYTES);
    for (let index = start; index < end; index++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        // Inside a string only a quote or a backslash matters: jump to the next one (a native
        // search, so a 900 KB string costs microseconds, not a JavaScript loop over its bytes).
        if (nextQuote < index) nextQuote = nextIndex(body, QUOTE, index);
        if (nextBackslash < index) nextBackslash = nextIndex(body, BACKSLASH, index);
        const next = Math.min(nextQuote, nextBackslash);
        if (next >= end) {
          index = end - 1;
          continue;
        }
        index = next;
        if (next === nextBackslash) escaped = true;
        else {
          inString = false;
          stringEnd = index;
        }
        continue;
      }
      const byte = body[index];
      switch (byte) {
        case QUOTE:
          inString = true;
          stringStart = index + 1;
          break;
        case COLON:
          if (depth === 1) key = keyAt(body, stringStart, stringEnd, limits);
          break;
        case COMMA:
          if (depth === 1) key = null;
          else if (depth === 2 && counting && ++commas >= counting.limit) return counting;
          break;
        case OPEN_ARRAY:
        case OPEN_OBJECT:
          depth++;
          if (byte === OPEN_ARRAY && depth === 2 && key !== null) {
            counting = { field: key, limit: limits[key] ?? Number.POSITIVE_INFINITY };
            commas = 0;
          }
          break;
        case CLOSE_ARRAY:
        case CLOSE_OBJECT:
          if (depth === 2) counting = null;
          depth--;
          break;
      }
    }
  }
  return null;
}

/** The position of the next `byte` from `from` on, or the body's length when there is none. */
function nextIndex(body: Uint8Array, byte: number, from: number): number {
  const found = body.indexOf(byte, from);
  return found === -1 ? body.length : found;
}

/** The key ending at `end` when `limits` names it (escapes decoded as JSON does), else null. */
function keyAt(body: Uint8Array, start: number, end: number, limits: BodyArrayLimits): string | null {
  if (end < start || end - start > MAX_KEY_BYTES) return null;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(body.buffer, body.byteOffset + start - 1, end - start + 2).toString('utf8'));
  } catch {
    return null;
  }
  return typeof key === 'string' && Object.hasOwn(limits, key) ? key : null;
}
