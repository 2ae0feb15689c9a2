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
export function isWhitespace(code: number): boolean {
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
 * Longest piece handed to the encoder. Longer text is cut, preferably where whitespace starts, so
 * that a caller can count a long text piece by piece and let other work run in between
 * (countInSlices): both ways give the same number.
 */
export const MAX_PIECE_CHARS = 4_096;

/**
 * Splits `text` so that no piece is longer than `maxPiece` characters or holds a run longer than
 * `maxRun`. Text within both bounds stays one piece (counted exactly). A long run is cut every
 * `maxRun` characters; a long text where a whitespace run starts (else where any run starts).
 * Never inside a surrogate pair. Cuts made = pieces − 1.
 */
export function splitIntoBoundedPieces(
  text: string,
  maxRun = MAX_RUN_CHARS,
  maxPiece = MAX_PIECE_CHARS,
): string[] {
  return [...boundedPieces(text, maxRun, maxPiece)];
}

/**
 * The pieces of splitIntoBoundedPieces, one at a time: finding each cut costs the length of its
 * piece, so a caller that pauses between pieces never scans a megabyte text in one go.
 */
export function* boundedPieces(
  text: string,
  maxRun = MAX_RUN_CHARS,
  maxPiece = MAX_PIECE_CHARS,
): Generator<string> {
  if (text.length <= maxRun) {
    yield text;
    return;
  }
  let pieceStart = 0;
  let runStart = 0;
  let runIsSpace = isWhitespace(text.charCodeAt(0));
  // Where the latest whitespace run in the current piece began (the preferred place to cut).
  let spaceStart = runIsSpace ? 0 : -1;
  for (let index = 1; index < text.length; index++) {
    const space = isWhitespace(text.charCodeAt(index));
    let cut = -1;
    if (space !== runIsSpace) {
      runStart = index;
      runIsSpace = space;
      if (space) spaceStart = index;
    } else if (index - runStart >= maxRun) {
      // The run reached maxRun characters: cut before `index`, one earlier to keep a surrogate pair whole.
      cut = isHighSurrogate(text.charCodeAt(index - 1)) && index - 1 > runStart ? index - 1 : index;
    }
    if (cut < 0) {
      if (index - pieceStart < maxPiece) continue;
      const boundary = spaceStart > pieceStart ? spaceStart : runStart > pieceStart ? runStart : index;
      cut = boundary === index && isHighSurrogate(text.charCodeAt(index - 1)) ? index - 1 : boundary;
    }
    yield text.slice(pieceStart, cut);
    pieceStart = cut;
    if (runStart < cut) runStart = cut;
    if (spaceStart < cut) spaceStart = runIsSpace ? runStart : -1;
  }
  yield text.slice(pieceStart);
}
