import { isWhitespace } from './bounded-pieces.js';

const SLASH = 0x2f;

/**
 * The first position at or after `from` (-1: none) where `text` can be cut so that its parts'
 * token counts add up to the whole text's, in every encoding engram counts with (cl100k_base and
 * o200k_base): just after a newline, when the next character is neither whitespace nor `/`.
 *
 * Why: both encodings pre-split text with a regex and merge pairs only within its pieces. No
 * piece can run from a newline into the non-whitespace character after it: letter pieces may
 * start with one character that is not a newline, whitespace pieces end at non-whitespace, and
 * punctuation pieces take trailing newlines (o200k_base also `/`, hence the exception) but
 * nothing after them. So a piece ends at such a position, and the next one starts there as it
 * would in the part alone; the part before it ends with a whitespace run that ends in a newline,
 * which is one piece either way. A property test checks the sums against whole counts.
 */
export function nextLineCut(text: string, from = 0): number {
  let newline = text.indexOf('\n', from);
  while (newline !== -1 && newline < text.length - 1) {
    const next = text.charCodeAt(newline + 1);
    if (next !== SLASH && !isWhitespace(next)) return newline + 1;
    newline = text.indexOf('\n', newline + 1);
  }
  return -1;
}
