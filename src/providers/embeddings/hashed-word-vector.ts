/** Trigrams one step of `addHashedWordVectorSteps` sums: about 0.1 ms. */
const TRIGRAMS_PER_STEP = 256;

/**
 * Adds a deterministic pseudo-random vector for an out-of-vocabulary word to `target`, scaled to
 * `norm × weight`, in steps of at most TRIGRAMS_PER_STEP trigrams: a "word" of 10,000 characters
 * (a pasted blob without spaces) took 5 ms in one step, 26 ms the first time, before the loop was
 * optimized. The vector is the sum of ±1 vectors seeded by the word's character trigrams
 * (`<kubectl>` → `<ku`, `kub`, …), so a word always gets the same vector, spellings that share most
 * trigrams (typos, inflections) get similar ones, and, being random, it is nearly orthogonal to the
 * semantic directions: it acts as an exact-ish lexical match channel for names, codes and jargon.
 */
export function* addHashedWordVectorSteps(
  word: string,
  norm: number,
  weight: number,
  target: Float32Array,
): Generator<void, void> {
  const padded = `<${word}>`;
  const sum = new Float32Array(target.length);
  for (let start = 0; start < padded.length - 2; start += TRIGRAMS_PER_STEP) {
    addTrigrams(padded, start, Math.min(start + TRIGRAMS_PER_STEP, padded.length - 2), sum);
    yield;
  }
  addScaled(sum, norm * weight, target);
}

/** Adds the ±1 vectors of the trigrams of `padded` starting at [from, to) to `sum`. */
function addTrigrams(padded: string, from: number, to: number, sum: Float32Array): void {
  for (let start = from; start < to; start++) {
    let state = fnv1a(padded.slice(start, start + 3)) || 1;
    for (let index = 0; index < sum.length; index += 32) {
      state = xorshift32(state);
      for (let bit = 0; bit < 32 && index + bit < sum.length; bit++) {
        sum[index + bit] = (sum[index + bit] ?? 0) + ((state >>> bit) & 1 ? 1 : -1);
      }
    }
  }
}

/** Adds `sum` scaled to the length `length` to `target`. */
function addScaled(sum: Float32Array, length: number, target: Float32Array): void {
  let sumOfSquares = 0;
  for (const value of sum) sumOfSquares += value * value;
  if (sumOfSquares === 0) return; // trigram vectors cancelled out: add nothing rather than NaN
  const factor = length / Math.sqrt(sumOfSquares);
  for (let index = 0; index < target.length; index++) {
    target[index] = (target[index] ?? 0) + (sum[index] ?? 0) * factor;
  }
}

/** 32-bit FNV-1a over UTF-16 code units: small, fast and well spread for short strings. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function xorshift32(state: number): number {
  let next = state;
  next ^= next << 13;
  next ^= next >>> 17;
  next ^= next << 5;
  return next >>> 0;
}
