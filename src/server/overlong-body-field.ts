import { isAscii } from 'node:buffer';
import { nextTurn } from '../core/event-loop-slicer.js';
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
  return new BodyFieldScanner(limits);
}

/**
 * The counter's state and its scan. A class, not a closure per body, with limits in Maps and
 * chunks seen as plain Uint8Arrays: every body runs the one scan V8 optimized once. Before, a
 * request's large body often started unoptimized (8–15 ms per 64 KB chunk instead of 0.3–0.7, in
 * one step each, until the recompiled scan was ready: 40–80 ms with both cores busy).
 */
class BodyFieldScanner implements BodyFieldCounter {
  // Maps, whatever objects the routes give: a field whose hidden class changes with the route
  // would make V8 throw the optimized scan away on a route's first large body.
  private readonly arrays: ReadonlyMap<string, number>;
  private readonly strings: ReadonlyMap<string, number>;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** In the top-level object, a string now would be a key (after `{` or `,`), not a value. */
  private expectKey = false;
  /** The bytes of the top-level key being read (null when none is, or it is too long to matter). */
  private keyBytes: number[] | null = null;
  private lastKey: string | null = null;
  /** The key whose value comes next in the top-level object, when it has a limit. */
  private key: string | null = null;
  private counting: OverlongField | null = null;
  private commas = 0;
  private measuring: MeasuredString | null = null;
  private found: OverlongField | null = null;

  constructor(limits: BodyFieldLimits) {
    this.arrays = new Map(Object.entries(limits.arrays ?? {}));
    this.strings = new Map(Object.entries(limits.strings ?? {}));
  }

  private keep(chunk: Uint8Array, from: number, to: number): void {
    const keyBytes = this.keyBytes;
    if (keyBytes === null) return;
    if (keyBytes.length + (to - from) > MAX_KEY_BYTES) this.keyBytes = null;
    else for (let index = from; index < to; index++) keyBytes.push(chunk[index] as number);
  }

  /** Adds a run of a measured string's plain bytes (no quote, no backslash); true once over. */
  private measure(string: MeasuredString, chunk: Uint8Array, from: number, to: number): boolean {
    const run = chunk.subarray(from, to);
    string.units += utf16Units(run);
    for (let index = 0; index < run.length && string.prefix.length < PREFIX_BYTES; index++) {
      string.prefix.push(run[index] as number);
    }
    return string.units > string.limit;
  }

  private overString(string: MeasuredString): OverlongField {
    this.found = {
      field: string.field,
      limit: string.limit,
      kind: 'string',
      prefix: decodePrefix(string.prefix),
    };
    return this.found;
  }

  feed(chunk: Uint8Array): OverlongField | null {
    // Always a plain Uint8Array view: a socket's Buffer has another hidden class than one made
    // here, and each new one deoptimized the scan on its first byte.
    return this.scan(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }

  private scan(chunk: Uint8Array): OverlongField | null {
    if (this.found) return this.found;
    // Where the next quote and backslash are in this chunk, once searched for: reused until passed.
    let nextQuote = -1;
    let nextBackslash = -1;
    for (let index = 0; index < chunk.length; index++) {
      if (this.inString) {
        const measuring = this.measuring;
        if (this.escaped) {
          this.escaped = false;
          this.keep(chunk, index, index + 1);
          if (measuring) {
            // One character for the escape; `\uXXXX`'s four hex digits follow as plain bytes.
            measuring.units += chunk[index] === json.LOWER_U ? -3 : 1;
            if (measuring.prefix.length < PREFIX_BYTES)
              measuring.prefix.push(json.BACKSLASH, chunk[index] as number);
            if (measuring.units > measuring.limit) return this.overString(measuring);
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
        this.keep(chunk, index, Math.min(next + 1, chunk.length));
        if (measuring && this.measure(measuring, chunk, index, Math.min(next, chunk.length))) {
          return this.overString(measuring);
        }
        if (next >= chunk.length) break;
        index = next;
        if (chunk[next] === json.BACKSLASH) this.escaped = true;
        else {
          this.inString = false;
          this.measuring = null;
          if (this.keyBytes !== null) this.lastKey = decodeKey(this.keyBytes, this.arrays, this.strings);
          this.keyBytes = null;
        }
        continue;
      }
      switch (chunk[index]) {
        case json.QUOTE: {
          this.inString = true;
          const topLevel = this.depth === 1;
          // The opening quote is kept: the key is decoded as the JSON string it is.
          this.keyBytes = topLevel && this.expectKey ? [json.QUOTE] : null;
          this.lastKey = null;
          const key = this.key;
          const limit = topLevel && !this.expectKey && key !== null ? this.strings.get(key) : undefined;
          if (limit !== undefined) {
            this.measuring = { field: key as string, limit, units: 0, prefix: [] };
          }
          break;
        }
        case json.COLON:
          if (this.depth === 1) {
            this.key = this.lastKey;
            this.expectKey = false;
          }
          break;
        case json.COMMA:
          if (this.depth === 1) {
            this.key = null;
            this.expectKey = true;
          } else if (this.depth === 2 && this.counting && ++this.commas >= this.counting.limit) {
            this.found = this.counting;
            return this.found;
          }
          break;
        case json.OPEN_ARRAY:
        case json.OPEN_OBJECT: {
          const depth = ++this.depth;
          if (depth === 1) this.expectKey = chunk[index] === json.OPEN_OBJECT;
          const key = this.key;
          const limit =
            chunk[index] === json.OPEN_ARRAY && depth === 2 && key !== null
              ? this.arrays.get(key)
              : undefined;
          if (limit !== undefined) {
            this.counting = { field: key as string, limit, kind: 'array' };
            this.commas = 0;
          }
          break;
        }
        case json.CLOSE_ARRAY:
        case json.CLOSE_OBJECT:
          if (this.depth === 2) this.counting = null;
          this.depth--;
          break;
      }
    }
    return null;
  }
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
  arrays: ReadonlyMap<string, number>,
  strings: ReadonlyMap<string, number>,
): string | null {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return null;
  }
  return typeof key === 'string' && (arrays.has(key) || strings.has(key)) ? key : null;
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
    if (start > 0) await nextTurn();
    const over = counter.feed(body.subarray(start, start + SCAN_SLICE_BYTES));
    if (over) return over;
  }
  return null;
}

let warmed = false;

/**
 * Runs the counter over a small body that takes every path of `feed` (keys, escapes, `\u`,
 * multi-byte characters, nested lists, a list and a string over their limits), enough times for
 * V8 to optimize it. Without it, each path a request took for the first time threw the optimized
 * scan away ("insufficient type feedback") and the next megabytes of a large body ran unoptimized
 * while it was recompiled: 4–15 ms per 64 KB chunk instead of 0.6, in one step each, for the
 * first requests after start. Runs once per process, when its first server is created.
 */
export function warmBodyFieldCounter(): void {
  if (warmed) return;
  warmed = true;
  const item = '{"role":"user","content":"a\\"b\\\\c\\u00e9 é 😀","n":[1,{"k":[2]}]},';
  const head = '{"skip":{"messages":[1,2]},"note":"x\\ty","messages":[';
  const body = Buffer.from(`${head}${item.repeat(400)}{}],"content":"${'é😀\\n'.repeat(60)}"}`);
  const limits: BodyFieldLimits[] = [
    { arrays: { messages: 1_000 }, strings: { content: 50 } },
    { arrays: { messages: 300 }, strings: { note: 10 } },
  ];
  for (let round = 0; round < 40; round++) {
    const counter = createBodyFieldCounter(limits[round % 2] ?? {});
    for (let start = 0; start < body.length; start += 4_096) {
      if (counter.feed(body.subarray(start, start + 4_096))) break;
    }
  }
}
