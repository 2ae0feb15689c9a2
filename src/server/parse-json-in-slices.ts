import type { Pause } from '../engine/parse-in-slices.js';
import * as json from './json-codes.js';

/** Characters scanned between pauses. */
const SCAN_SLICE_CHARS = 64 * 1024;
/** Items parsed between pauses. */
const ITEMS_PER_PAUSE = 256;
/** Longest key (characters, quotes included) worth decoding while looking for `key`. */
const MAX_KEY_CHARS = 258;

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** Where the top-level object's array `key` lies in a JSON text: its brackets and each item's span. */
interface ArraySpans {
  open: number;
  close: number;
  /** Each item's start and end, one pair after another (numbers, not 100,000 small arrays). */
  items: number[];
}

/**
 * Finds the array that the top-level object holds under `key`, scanning the text once and pausing
 * between slices. Null when the text is not such an object, holds `key` twice, or the array is
 * not well formed: the caller then parses the text whole, which reports any error exactly.
 */
async function findArraySpans(text: string, key: string, pause: Pause): Promise<ArraySpans | null> {
  let depth = 0;
  let inString = false;
  let stringStart = 0;
  let lastString = -1;
  let lastStringEnd = -1;
  let found: ArraySpans | null = null;
  let current: ArraySpans | null = null;
  let itemStart = -1;
  let nextPause = SCAN_SLICE_CHARS;
  // The next backslash at or after the scan (text.length: none left), found natively and reused.
  let nextBackslash = -1;
  for (let index = 0; index < text.length; index++) {
    if (index >= nextPause) {
      nextPause = index + SCAN_SLICE_CHARS;
      await pause();
    }
    if (inString) {
      // A string's inside is skipped with native searches: a 900 KB message is one step, not
      // 900,000 turns of this loop.
      if (nextBackslash < index) {
        nextBackslash = text.indexOf('\\', index);
        if (nextBackslash === -1) nextBackslash = text.length;
      }
      const quote = text.indexOf('"', index);
      if (quote === -1) return null;
      if (nextBackslash < quote) {
        index = nextBackslash + 1; // the escaped character, skipped by the loop's increment
        continue;
      }
      index = quote;
      inString = false;
      lastString = stringStart;
      lastStringEnd = quote;
      continue;
    }
    const code = text.charCodeAt(index);
    if (current && depth === 2 && itemStart === -1 && !isSpace(code) && code !== json.CLOSE_ARRAY)
      itemStart = index;
    switch (code) {
      case json.QUOTE:
        inString = true;
        stringStart = index;
        break;
      case json.COLON:
        if (
          depth === 1 &&
          lastStringEnd - lastString + 1 <= MAX_KEY_CHARS &&
          decodeKey(text, lastString, lastStringEnd) === key
        ) {
          if (found) return null;
          found = { open: -1, close: -1, items: [] };
        }
        break;
      case json.COMMA:
        if (depth === 1) lastString = -1;
        if (current && depth === 2) {
          if (itemStart === -1) return null;
          current.items.push(itemStart, index);
          itemStart = -1;
        }
        break;
      case json.OPEN_ARRAY:
      case json.OPEN_OBJECT:
        depth++;
        if (depth === 2 && found && found.open === -1) {
          if (code !== json.OPEN_ARRAY) return null;
          found.open = index;
          current = found;
          itemStart = -1;
        }
        break;
      case json.CLOSE_ARRAY:
      case json.CLOSE_OBJECT:
        if (current && depth === 2) {
          if (code !== json.CLOSE_ARRAY) return null;
          if (itemStart !== -1) current.items.push(itemStart, index);
          else if (current.items.length > 0) return null; // a trailing comma
          current.close = index;
          current = null;
        }
        depth--;
        break;
      default:
        if (depth === 1 && found && found.open === -1 && !isSpace(code)) return null; // not an array
    }
  }
  return found && found.close !== -1 ? found : null;
}

function decodeKey(text: string, start: number, end: number): string | undefined {
  if (start < 0) return undefined;
  try {
    const decoded: unknown = JSON.parse(text.slice(start, end + 1));
    return typeof decoded === 'string' ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The top-level object of `text` with its array `key` left empty, and the span of each of that
 * array's items, for a caller that parses the items one at a time. Null when the text is not such
 * an object, holds `key` twice, or the array or the rest of the object is not well formed: the
 * caller then parses the text whole, which reports any error exactly. The items themselves are not
 * parsed here; item `i` lies at `spans[2i]` up to `spans[2i + 1]`.
 */
export async function splitJsonArray(
  text: string,
  key: string,
  pause: Pause,
): Promise<{ envelope: Record<string, unknown>; spans: number[] } | null> {
  const spans = await findArraySpans(text, key, pause);
  if (spans === null) return null;
  let envelope: unknown;
  try {
    envelope = JSON.parse(`${text.slice(0, spans.open)}[]${text.slice(spans.close + 1)}`);
  } catch {
    return null;
  }
  if (
    typeof envelope !== 'object' ||
    envelope === null ||
    !Array.isArray((envelope as Record<string, unknown>)[key])
  ) {
    return null;
  }
  return { envelope: envelope as Record<string, unknown>, spans: spans.items };
}

/**
 * `JSON.parse(text)` for a body whose top-level object holds a long array under `key` (a PUT's
 * `messages`), cut into slices: one scan finds the array's items, the rest of the object is parsed
 * with the array left empty, and the items are parsed one by one, pausing every 256. The result is
 * what `JSON.parse(text)` returns. Whenever anything is not as expected (the text is not such an
 * object, an item does not parse, `key` appears twice), it falls back to `JSON.parse(text)`, so
 * malformed JSON throws exactly what `JSON.parse` throws.
 */
export async function parseJsonInSlices(text: string, key: string, pause: Pause): Promise<unknown> {
  const split = await splitJsonArray(text, key, pause);
  if (split === null) return JSON.parse(text);
  const items: unknown[] = [];
  try {
    for (let index = 0; index < split.spans.length / 2; index++) {
      if (index % ITEMS_PER_PAUSE === 0 && index > 0) await pause();
      items.push(JSON.parse(text.slice(split.spans[2 * index], split.spans[2 * index + 1])));
    }
  } catch {
    return JSON.parse(text);
  }
  split.envelope[key] = items;
  return split.envelope;
}
