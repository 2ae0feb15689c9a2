import { ownCopy } from './memoize-counter.js';

/** Pieces longer than this are counted, never kept (words and their punctuation are shorter). */
const LONGEST_KEPT_PIECE_CHARS = 32;
/** Pieces kept at most, oldest out first: about a megabyte at most. */
const KEPT_PIECES = 16_384;
/** After this many pieces of one text missed the memo, the rest is counted in one call. */
const MISSES_BEFORE_WHOLE = 16;

/**
 * Wraps an encoding's count with a memo of its pre-tokenizer pieces. The encodings engram counts
 * with split text by a regex (`split`, the encoding's own) and byte-pair merge within each piece
 * only, so a text's count is the sum of its pieces' counts; a piece found alone by the same regex
 * is that one piece (the pattern has no look-behind, and its look-aheads and `$` only shorten
 * whitespace runs, which stay one piece at the end of a string). A memo hit costs a lookup in a
 * small map instead of the library's call (special-token handling, a lookup in its rank table of
 * 200,000 entries, far in memory): a line of a new memory is counted about four times faster
 * (BENCHMARKS.md), which is what a turn over a large store pays for every item it has not seen
 * before. Text that keeps missing (a long message of new words) is handed to `count` whole after
 * `MISSES_BEFORE_WHOLE` misses, from a piece boundary, where the regex starts a piece anyway.
 * A property test checks the sums against `count` of whole texts.
 */
export function memoizePieces(split: RegExp, count: (text: string) => number): (text: string) => number {
  const pieces = new RegExp(split.source, split.flags.includes('g') ? split.flags : `${split.flags}g`);
  const memo = new Map<string, number>();
  return (text) => {
    pieces.lastIndex = 0;
    let total = 0;
    let misses = 0;
    for (let match = pieces.exec(text); match !== null; match = pieces.exec(text)) {
      const piece = match[0];
      // No alternative of the encodings' patterns matches nothing; guard against one that would.
      if (piece === '') {
        pieces.lastIndex++;
        continue;
      }
      const known = memo.get(piece);
      if (known !== undefined) {
        total += known;
        continue;
      }
      if (++misses > MISSES_BEFORE_WHOLE) return total + count(text.slice(match.index));
      const counted = count(piece);
      total += counted;
      if (piece.length <= LONGEST_KEPT_PIECE_CHARS) {
        if (memo.size >= KEPT_PIECES) memo.delete(memo.keys().next().value as string);
        memo.set(ownCopy(piece), counted);
      }
    }
    return total;
  };
}
