import { isAscii } from 'node:buffer';
import * as json from './json-codes.js';

/**
 * Limits on a route's JSON body that are checked on its bytes as they arrive, by top-level field
 * name: the most items of a list, the most characters of a string.
 */
export interface BodyFieldLimits {
  /** Most items (at least 1) of each top-level list. */
  readonly arrays?: Readonly<Record<string, number>>;
  /** Most characters of each top-level string, counted as `string.length` (and zod) count them. */
  readonly strings?: Readonly<Record<string, number>>;
  /**
   * For a body that is not JSON (a `text/markdown` upload): the field its whole text becomes and
   * its most characters, counted as the text is decoded (`parse-utf8-body.ts`).
   */
  readonly text?: { readonly field: string; readonly limit: number };
}

/** A top-level field found over its limit. */
export interface OverlongField {
  field: string;
  limit: number;
  kind: 'array' | 'string';
  /** A string's first characters (at most PREFIX_CHARS), for the error to quote. */
  prefix?: string;
}

/** Bytes scanned between yields to the event loop (~1 ms of structural bytes, warm). */
const SCAN_SLICE_BYTES = 64 * 1024;

/** Bytes of a string looked at one by one before a native search takes over. */
const PROBE_BYTES = 16;

/** Longest key (in bytes, quotes excluded) worth decoding: the limited fields have short names. */
const MAX_KEY_BYTES = 256;

/** Characters of an overlong string kept for its error (which quotes a few hundred at most). */
export const PREFIX_CHARS = 200;

/** Raw bytes kept to decode PREFIX_CHARS characters from (an escape takes up to 6 bytes a character). */
const PREFIX_BYTES = 6 * PREFIX_CHARS;

/** Counts a JSON body's limited top-level fields as its bytes arrive; see `createBodyFieldCounter`. */
export interface BodyFieldCounter {
  /** Reads the next bytes of the body: the field found over its limit so far, or null. */
  feed(chunk: Uint8Array): OverlongField | null;
}

/** The string a top-level field's value is, being measured. */
interface MeasuredString {
  field: string;
  limit: number;
  /** UTF-16 code units of the decoded string so far. */
  units: number;
  /** Its first raw bytes (escapes undecoded), up to PREFIX_BYTES. */
  prefix: number[];
}

/**
 * Finds a top-level field of a JSON object body over its limit, reading the raw bytes once, chunk
 * by chunk as they arrive, before anything parses them: a million-item list is refused after its
 * first `limit + 1` items, and a 40 MB string as soon as it passes its limit, instead of being
 * received whole, joined, parsed (one uninterruptible `JSON.parse`; on the 2-vCPU development
 * machine a fresh 5 MB string costs ~15 ms of page faults each time one is made), validated and
 * dropped. Lists: counts the commas directly inside the array (items = commas + 1). Strings: counts
 * UTF-16 code units from the UTF-8 bytes (one per byte that starts a character, two for a 4-byte
 * character; an escape is one, whatever its length). The cost is linear in the bytes read and
 * nothing is allocated per item. Structural characters are ASCII, and UTF-8 never uses ASCII bytes
 * inside a multi-byte character, so bytes can be scanned without decoding; inside a string only the
 * next quote or backslash matters, found with a native search. A body that is not JSON just finds
 * nothing (the parser reports it).
 */
export function createBodyFieldCounter(limits: BodyFieldLimits): BodyFieldCounter {
  const arrays = limits.arrays ?? {};
  const strings = limits.strings ?? {};
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
  let counting: OverlongField | null = null;
  let commas = 0;
  let measuring: MeasuredString | null = null;
  let found: OverlongField | null = null;

  const keep = (chunk: Uint8Array, from: number, to: number) => {
    if (keyBytes === null) return;
    if (keyBytes.length + (to - from) > MAX_KEY_BYTES) keyBytes = null;
    else for (let index = from; index < to; index++) keyBytes.push(chunk[index] as number);
  };
  /** Adds a run of a measured string's plain bytes (no quote, no backslash); true once over. */
  const measure = (string: MeasuredString, chunk: Uint8Array, from: number, to: number): boolean => {
    const run = chunk.subarray(from, to);
    string.units += utf16Units(run);
    for (let index = 0; index < run.length && string.prefix.length < PREFIX_BYTES; index++) {
      string.prefix.push(run[index] as number);
    }
    return string.units > string.limit;
  };
  const overString = (string: MeasuredString): OverlongField => {
    found = { field: string.field, limit: string.limit, kind: 'string', prefix: decodePrefix(string.prefix) };
    return found;
  };

  const feed = (chunk: Uint8Array): OverlongField | null => {
    if (found) return found;
    // Where the next quote and backslash are in this chunk, once searched for: reused until passed.
    let nextQuote = -1;
    let nextBackslash = -1;
    for (let index = 0; index < chunk.length; index++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          keep(chunk, index, index + 1);
          if (measuring) {
            // One character for the escape; `\uXXXX`'s four hex digits follow as plain bytes.
            measuring.units += chunk[index] === json.LOWER_U ? -3 : 1;
            if (measuring.prefix.length < PREFIX_BYTES)
              measuring.prefix.push(json.BACKSLASH, chunk[index] as number);
            if (measuring.units > measuring.limit) return overString(measuring);
          }
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
        if (measuring && measure(measuring, chunk, index, Math.min(next, chunk.length))) {
          return overString(measuring);
        }
        if (next >= chunk.length) break;
        index = next;
        if (chunk[next] === json.BACKSLASH) escaped = true;
        else {
          inString = false;
          measuring = null;
          if (keyBytes !== null) lastKey = decodeKey(keyBytes, arrays, strings);
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
          if (depth === 1 && !expectKey && key !== null && Object.hasOwn(strings, key)) {
            measuring = { field: key, limit: strings[key] as number, units: 0, prefix: [] };
          }
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
          if (chunk[index] === json.OPEN_ARRAY && depth === 2 && key !== null && Object.hasOwn(arrays, key)) {
            counting = { field: key, limit: arrays[key] as number, kind: 'array' };
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

/** UTF-16 code units that UTF-8 bytes decode to (a run cut inside a character counts its lead byte). */
function utf16Units(bytes: Uint8Array): number {
  if (isAscii(bytes)) return bytes.length;
  let units = 0;
  for (const byte of bytes) {
    // Continuation bytes (10xxxxxx) add nothing; a 4-byte lead is a surrogate pair.
    if ((byte & 0xc0) !== 0x80) units += byte >= 0xf0 ? 2 : 1;
  }
  return units;
}

/**
 * A string's first raw bytes decoded as JSON does, cut to PREFIX_CHARS characters: a character or
 * escape cut short at the end is dropped; '' when the bytes are not a JSON string's inside.
 */
function decodePrefix(bytes: number[]): string {
  // `stream` holds back a UTF-8 sequence cut short at the end instead of making it U+FFFD.
  const text = new TextDecoder().decode(Uint8Array.from(bytes), { stream: true });
  // An escape is at most 6 characters: drop up to 6 from the end until the rest decodes.
  for (let drop = 0; drop <= 6 && drop <= text.length; drop++) {
    try {
      const decoded: unknown = JSON.parse(`"${text.slice(0, text.length - drop)}"`);
      if (typeof decoded === 'string') return decoded.slice(0, PREFIX_CHARS);
    } catch {}
  }
  return '';
}

/** The position of the next `byte` from `from` on, or the chunk's length when there is none. */
function nextIndex(chunk: Uint8Array, byte: number, from: number): number {
  const position = chunk.indexOf(byte, from);
  return position === -1 ? chunk.length : position;
}

/** A key's bytes (quotes included) decoded as JSON does, when a limit names it; else null. */
function decodeKey(
  bytes: number[],
  arrays: Readonly<Record<string, number>>,
  strings: Readonly<Record<string, number>>,
): string | null {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return null;
  }
  return typeof key === 'string' && (Object.hasOwn(arrays, key) || Object.hasOwn(strings, key)) ? key : null;
}

/**
 * `createBodyFieldCounter` over a whole body already received, yielding to the event loop every
 * 64 KB. Resolves the field over its limit, or null.
 */
export async function overlongBodyField(
  body: Uint8Array,
  limits: BodyFieldLimits,
): Promise<OverlongField | null> {
  const counter = createBodyFieldCounter(limits);
  for (let start = 0; start < body.length; start += SCAN_SLICE_BYTES) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const over = counter.feed(body.subarray(start, start + SCAN_SLICE_BYTES));
    if (over) return over;
  }
  return null;
}
