import { isWhitespace } from './bounded-pieces.js';

const SLASH = 0x2f;
const isLineBreak = (code: number) => code === 0x0a || code === 0x0d;

/**
 * A lower bound on the tokens of `text` in cl100k_base and o200k_base, found by one scan that stops
 * as soon as the bound passes `above`: the cost follows `above`, not the text.
 *
 * Why it holds: both encodings' pre-tokenizers cut text into pieces, and BPE gives every piece at
 * least one token. A piece holds at most one "word start" — a non-whitespace character at the
 * piece's start, or right after a whitespace character at the piece's start (the optional leading
 * space of a word or of punctuation); whitespace pieces hold none. So the text's word starts
 * (the first character when it is not whitespace, and every non-whitespace character after a
 * whitespace one) are at most its pieces, hence its tokens. One exception: o200k's punctuation
 * piece may end in line breaks and slashes (`[\r\n/]*`), so a slash right after a line break is
 * not counted. Whitespace is JavaScript's `\s`, as in the pre-tokenizers. The bounded counter
 * (`boundedCounter`) only cuts pieces further and charges each cut, so it never counts fewer.
 */
export function tokensAtLeast(text: string, above = Number.POSITIVE_INFINITY): number {
  if (text.length === 0) return 0;
  let previous = text.charCodeAt(0);
  let starts = isWhitespace(previous) ? 0 : 1;
  for (let index = 1; index < text.length && starts <= above; index++) {
    const code = text.charCodeAt(index);
    if (isWhitespace(previous) && !isWhitespace(code) && !(code === SLASH && isLineBreak(previous))) {
      starts++;
    }
    previous = code;
  }
  return starts;
}
