/**
 * Longest run (of whitespace, or of anything else) handed to the BPE encoder in one piece.
 * gpt-tokenizer merges pairs within one pre-token in time quadratic in its length, and a
 * pre-token is at most one whitespace-delimited run plus one leading character, so bounding runs
 * bounds the work per character: counting n characters costs O(n · MAX_RUN_CHARS).
 */
export const MAX_RUN_CHARS = 256;

/**
 * Tokens added for every cut made inside a run. Cutting a run can only change how its two sides
 * merge at the cut: the pieces are counted exactly and the cut is charged this margin, so the sum
 * never falls below the exact count (checked by property tests against the uncut count).
 */
export const TOKENS_PER_CUT = 1;

/** JavaScript's `\s`, which is what the tokenizer's pre-tokenizer splits runs on. */
function isWhitespace(code: number): boolean {
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Splits `text` so that no piece holds a run longer than `maxRun` characters. Text whose runs are
 * all short stays one piece (counted exactly); a long run is cut every `maxRun` characters (never
 * inside a surrogate pair), and the text around it stays whole. Returns the pieces and the number
 * of cuts made (pieces − 1).
 */
export function splitIntoBoundedPieces(text: string, maxRun = MAX_RUN_CHARS): string[] {
  if (text.length <= maxRun) return [text];
  const pieces: string[] = [];
  let pieceStart = 0;
  let runStart = 0;
  let runIsSpace = isWhitespace(text.charCodeAt(0));
  for (let index = 1; index < text.length; index++) {
    const space = isWhitespace(text.charCodeAt(index));
    if (space !== runIsSpace) {
      runStart = index;
      runIsSpace = space;
      continue;
    }
    if (index - runStart < maxRun) continue;
    // The run reached maxRun characters: cut before `index`, one earlier to keep a surrogate pair whole.
    const cut = isHighSurrogate(text.charCodeAt(index - 1)) && index - 1 > runStart ? index - 1 : index;
    pieces.push(text.slice(pieceStart, cut));
    pieceStart = cut;
    runStart = cut;
  }
  pieces.push(text.slice(pieceStart));
  return pieces;
}
