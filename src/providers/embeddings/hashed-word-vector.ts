/**
 * Adds a deterministic pseudo-random vector for an out-of-vocabulary word to `target`, scaled to
 * `norm × weight`. The vector is the sum of ±1 vectors seeded by the word's character trigrams
 * (`<kubectl>` → `<ku`, `kub`, …), so a word always gets the same vector, spellings that share most
 * trigrams (typos, inflections) get similar ones, and, being random, it is nearly orthogonal to the
 * semantic directions: it acts as an exact-ish lexical match channel for names, codes and jargon.
 */
export function addHashedWordVector(word: string, norm: number, weight: number, target: Float32Array): void {
  const sum = new Float32Array(target.length);
  const padded = `<${word}>`;
  for (let start = 0; start + 3 <= padded.length; start++) {
    let state = fnv1a(padded.slice(start, start + 3)) || 1;
    for (let index = 0; index < sum.length; index += 32) {
      state = xorshift32(state);
      for (let bit = 0; bit < 32 && index + bit < sum.length; bit++) {
        sum[index + bit] = (sum[index + bit] ?? 0) + ((state >>> bit) & 1 ? 1 : -1);
      }
    }
  }
  let sumOfSquares = 0;
  for (const value of sum) sumOfSquares += value * value;
  if (sumOfSquares === 0) return; // trigram vectors cancelled out: add nothing rather than NaN
  const factor = (norm * weight) / Math.sqrt(sumOfSquares);
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
