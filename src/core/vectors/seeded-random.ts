/**
 * A seeded pseudo-random generator (mulberry32) giving numbers in [0, 1): the same seed gives the
 * same sequence, so index training and test data are reproducible. Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
