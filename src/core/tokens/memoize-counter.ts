import { nextLineCut } from './line-cuts.js';
import type { TokenCounter } from './token-counter.js';

/** Texts longer than this are memoized whole, not line by line (a long message, a document). */
const LINE_BY_LINE_UP_TO_CHARS = 65_536;

/**
 * Wraps a counter with a bounded memo. A text is counted line by line, at the cuts where the
 * tokenizer's own pre-tokenizer starts a new piece (`nextLineCut`), so the sum is the count of the
 * whole; each line is looked up in the memo. Sections are rebuilt every turn from memories that
 * recur across turns (and the same lines are counted alone to choose them): hashing a line is far
 * cheaper than tokenizing it. Lines shorter than `minLength` are counted directly.
 */
export function memoizeCounter(
  counter: TokenCounter,
  options: { maxEntries?: number; minLength?: number } = {},
): TokenCounter {
  const maxEntries = options.maxEntries ?? 4_096;
  const minLength = options.minLength ?? 24;
  const memo = new Map<string, number>();
  const countPart = (part: string): number => {
    if (part.length < minLength) return counter.count(part);
    const known = memo.get(part);
    if (known !== undefined) return known;
    const counted = counter.count(part);
    // Evict the oldest entry (Map keeps insertion order): a simple, bounded FIFO.
    if (memo.size >= maxEntries) memo.delete(memo.keys().next().value as string);
    memo.set(ownCopy(part), counted);
    return counted;
  };
  return {
    encoding: counter.encoding,
    count(text) {
      if (text.length > LINE_BY_LINE_UP_TO_CHARS) return countPart(text);
      let total = 0;
      let start = 0;
      for (let cut = nextLineCut(text); cut !== -1; cut = nextLineCut(text, cut)) {
        total += countPart(text.slice(start, cut));
        start = cut;
      }
      return total + countPart(start === 0 ? text : text.slice(start));
    },
  };
}

/**
 * A copy of `part` that holds its own characters: V8 makes a slice of a long string point into
 * it, and a memo key that did would keep the whole section it was cut from alive.
 */
function ownCopy(part: string): string {
  return Buffer.from(part, 'utf16le').toString('utf16le');
}
