import { nextLineCut } from './line-cuts.js';
import type { TokenCounter } from './token-counter.js';

/** Lines longer than this are counted, never kept: the memo is for lines that recur, not documents. */
const LONGEST_KEPT_LINE_CHARS = 4_096;

/**
 * Wraps a counter with a bounded memo. A text is counted line by line, at the cuts where the
 * tokenizer's own pre-tokenizer starts a new piece (`nextLineCut`), so the sum is the count of the
 * whole; each line is looked up in the memo. Sections are rebuilt every turn from memories that
 * recur across turns (and the same lines are counted alone to choose them): hashing a line is far
 * cheaper than tokenizing it. Lines shorter than `minLength` or longer than 4,096 characters are
 * counted directly; the memo keeps at most `maxEntries` lines and `maxChars` characters, oldest
 * out first, so a long message cannot make it hold more.
 */
export function memoizeCounter(
  counter: TokenCounter,
  options: { maxEntries?: number; minLength?: number; maxChars?: number } = {},
): TokenCounter {
  const maxEntries = options.maxEntries ?? 4_096;
  const minLength = options.minLength ?? 24;
  const maxChars = options.maxChars ?? 1_048_576;
  const memo = new Map<string, number>();
  let chars = 0;
  const countPart = (part: string): number => {
    if (part.length < minLength || part.length > LONGEST_KEPT_LINE_CHARS) return counter.count(part);
    const known = memo.get(part);
    if (known !== undefined) return known;
    const counted = counter.count(part);
    // Evict the oldest entries (Map keeps insertion order): a simple, bounded FIFO.
    while (memo.size > 0 && (memo.size >= maxEntries || chars + part.length > maxChars)) {
      const oldest = memo.keys().next().value as string;
      memo.delete(oldest);
      chars -= oldest.length;
    }
    memo.set(ownCopy(part), counted);
    chars += part.length;
    return counted;
  };
  const countUpTo = (text: string, limit: number): number => {
    // A long line (a memory of 20,000 characters on one line) is counted only as far as needed.
    const partUpTo = (part: string, left: number) =>
      part.length > LONGEST_KEPT_LINE_CHARS && counter.countUpTo
        ? counter.countUpTo(part, left)
        : countPart(part);
    let total = 0;
    let start = 0;
    for (let cut = nextLineCut(text); cut !== -1; cut = nextLineCut(text, cut)) {
      total += partUpTo(text.slice(start, cut), limit - total);
      if (total > limit) return total;
      start = cut;
    }
    return total + partUpTo(start === 0 ? text : text.slice(start), limit - total);
  };
  return {
    encoding: counter.encoding,
    count: (text) => countUpTo(text, Number.POSITIVE_INFINITY),
    countUpTo,
    *countSteps(text) {
      // Long lines in the inner counter's steps; each line a step of its own.
      const partSteps = function* (part: string): Generator<void, number> {
        if (part.length > LONGEST_KEPT_LINE_CHARS && counter.countSteps)
          return yield* counter.countSteps(part);
        return countPart(part);
      };
      let total = 0;
      let start = 0;
      for (let cut = nextLineCut(text); cut !== -1; cut = nextLineCut(text, cut)) {
        total += yield* partSteps(text.slice(start, cut));
        yield;
        start = cut;
      }
      return total + (yield* partSteps(start === 0 ? text : text.slice(start)));
    },
  };
}

/**
 * A copy of `part` that holds its own characters: V8 makes a slice of a long string point into
 * it, and a memo key that did would keep the whole section it was cut from alive.
 */
export function ownCopy(part: string): string {
  return Buffer.from(part, 'utf16le').toString('utf16le');
}
