import { describe, expect, it } from 'vitest';
import { addHashedWordVector } from './hashed-word-vector.js';
import { dotProduct, l2Normalize } from './l2-normalize.js';

function hashed(word: string, dimensions = 100): Float32Array {
  const vector = new Float32Array(dimensions);
  addHashedWordVector(word, 1, 1, vector);
  return vector;
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
});
