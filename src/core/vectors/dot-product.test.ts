import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dotProduct, dotProductPair } from './dot-product.js';

const floats = (length: number) =>
  fc.float32Array({ minLength: length, maxLength: length, noNaN: true, noDefaultInfinity: true });

describe('dotProductPair', () => {
  it('gives, bit for bit, what dotProduct gives for each of the two vectors', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 23 })
          .chain((dimensions) =>
            fc.tuple(fc.constant(dimensions), fc.nat(3), floats(dimensions * 6), floats(dimensions)),
          ),
        ([dimensions, start, vectors, query]) => {
          const into = new Float64Array(2);
          const offset = start * dimensions;
          dotProductPair(vectors, offset, query, dimensions, into);
          expect(Object.is(into[0], dotProduct(vectors, offset, query, 0, dimensions))).toBe(true);
          expect(Object.is(into[1], dotProduct(vectors, offset + dimensions, query, 0, dimensions))).toBe(
            true,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads the second vector right after the first', () => {
    const into = new Float64Array(2);
    dotProductPair(
      Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
      0,
      Float32Array.from([1, 0, 1, 0, 1]),
      5,
      into,
    );
    expect([...into]).toEqual([9, 24]);
  });
});
