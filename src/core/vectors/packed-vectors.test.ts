import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unitVector } from './dot-product.js';
import { allocatePacked, nearestPacked } from './packed-vectors.js';
import { seededRandom } from './seeded-random.js';

describe('packed vectors', () => {
  it('are found alike in an arena of their own and in an ordinary array, batch after batch', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_600 }),
        fc.integer({ min: 1, max: 33 }),
        fc.nat(),
        fc.integer({ min: 1, max: 300 }),
        (count, dimensions, seed, limit) => {
          const random = seededRandom(seed);
          const keys = Int32Array.from({ length: count }, (_, index) => index * 3);
          const packed = allocatePacked(keys, dimensions);
          expect(packed.inArena !== undefined).toBe(count >= 256);
          const plain = { keys, dimensions, vectors: new Float32Array(count * dimensions) };
          for (let index = 0; index < count; index++) {
            const vector = unitVector(Float32Array.from({ length: dimensions }, () => random() - 0.5));
            packed.vectors.set(vector, index * dimensions);
            plain.vectors.set(vector, index * dimensions);
          }
          const query = unitVector(Float32Array.from({ length: dimensions }, () => random() - 0.5));
          expect(nearestPacked(packed, query, limit)).toEqual(nearestPacked(plain, query, limit));
        },
      ),
      { numRuns: 60 },
    );
  });
});
