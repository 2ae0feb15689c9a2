import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSteps } from '../../core/assembly/history-units.js';
import { addHashedWordVectorSteps } from './hashed-word-vector.js';
import { dotProduct, l2Normalize } from './l2-normalize.js';

const addHashedWordVector = (word: string, norm: number, weight: number, target: Float32Array) =>
  runSteps(addHashedWordVectorSteps(word, norm, weight, target));

function hashed(word: string, dimensions = 100): Float32Array {
  const vector = new Float32Array(dimensions);
  addHashedWordVector(word, 1, 1, vector);
  return vector;
}

/** The vectors as they were computed in one step before they were computed in steps (stored vectors depend on them). */
function reference(word: string, norm: number, weight: number, target: Float32Array): void {
  const sum = new Float32Array(target.length);
  const padded = `<${word}>`;
  for (let start = 0; start + 3 <= padded.length; start++) {
    let hash = 0x811c9dc5;
    for (const code of [0, 1, 2].map((offset) => padded.charCodeAt(start + offset))) {
      hash ^= code;
      hash = Math.imul(hash, 0x01000193);
    }
    let state = hash >>> 0 || 1;
    for (let index = 0; index < sum.length; index += 32) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      for (let bit = 0; bit < 32 && index + bit < sum.length; bit++) {
        sum[index + bit] = (sum[index + bit] ?? 0) + ((state >>> bit) & 1 ? 1 : -1);
      }
    }
  }
  let sumOfSquares = 0;
  for (const value of sum) sumOfSquares += value * value;
  if (sumOfSquares === 0) return;
  const factor = (norm * weight) / Math.sqrt(sumOfSquares);
  for (let index = 0; index < target.length; index++)
    target[index] = (target[index] ?? 0) + (sum[index] ?? 0) * factor;
}

describe('addHashedWordVector', () => {
  it('is deterministic and scaled to norm × weight', () => {
    expect(hashed('kubectl')).toEqual(hashed('kubectl'));
    const target = new Float32Array(100);
    addHashedWordVector('kubectl', 3, 0.5, target);
    expect(Math.sqrt(dotProduct(target, target))).toBeCloseTo(1.5, 5);
  });

  it('makes spellings that share trigrams closer than unrelated words', () => {
    const typo = dotProduct(l2Normalize(hashed('kubernetes')), l2Normalize(hashed('kubernetis')));
    const unrelated = dotProduct(l2Normalize(hashed('kubernetes')), l2Normalize(hashed('zx4471')));
    expect(typo).toBeGreaterThan(0.5);
    expect(typo).toBeGreaterThan(unrelated);
  });

  it('handles one-letter words and odd dimensions', () => {
    expect(Math.sqrt(dotProduct(hashed('x', 7), hashed('x', 7)))).toBeCloseTo(1, 5);
  });

  it('computes, in steps of at most 256 trigrams, exactly the vector computed in one step', () => {
    const check = (word: string, dimensions: number, norm: number) => {
      const expected = Float32Array.from({ length: dimensions }, (_, index) => index / 7);
      const actual = expected.slice();
      reference(word, norm, 0.5, expected);
      const steps = addHashedWordVectorSteps(word, norm, 0.5, actual);
      let count = 0;
      while (!steps.next().done) count++;
      expect(actual).toEqual(expected);
      // A word of n characters has n trigrams once padded: a step each 256.
      expect(count).toBe(Math.ceil(word.length / 256));
    };
    // One trigram past a step, and past two: the trigrams at the step edges.
    for (const length of [255, 256, 257, 512, 513, 1_025]) {
      const word = Array.from({ length }, (_, index) => String.fromCharCode(97 + ((index * 7) % 26))).join(
        '',
      );
      check(word, 100, 1);
    }
    fc.assert(
      fc.property(
        // Long words (up to several steps) as well as short ones: fast-check's default size would
        // keep every word under a dozen characters, in one step.
        fc.oneof(
          fc.string({ minLength: 250, maxLength: 1_500, size: 'max' }),
          fc.string({ unit: 'binary', minLength: 250, maxLength: 1_500, size: 'max' }),
          fc.string({ minLength: 1, maxLength: 20 }),
        ),
        fc.integer({ min: 1, max: 130 }),
        fc.float({ min: Math.fround(0.1), max: 5, noNaN: true }),
        check,
      ),
      { numRuns: 200 },
    );
  });
});
