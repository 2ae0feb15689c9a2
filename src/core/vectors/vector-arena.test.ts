import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createArena, finiteFloats } from '../../../test/support/vector-arena-fixtures.js';
import { dotProduct } from './dot-product.js';
import { ARENA_BATCH, VectorArena } from './vector-arena.js';

describe('VectorArena', () => {
  it('computes each dot product bit for bit as dotProduct does, for any dimension count', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 40 })
          .chain((dimensions) =>
            fc.tuple(
              fc.constant(dimensions),
              finiteFloats(dimensions),
              fc.array(finiteFloats(dimensions), { minLength: 1, maxLength: 30 }),
            ),
          ),
        ([dimensions, query, vectors]) => {
          const arena = createArena(dimensions, 8);
          const start = arena.allocate(vectors.length * dimensions);
          for (const [row, vector] of vectors.entries()) arena.floats.set(vector, start + row * dimensions);
          const unit = Float32Array.from(query);
          arena.setQuery(unit);
          const dots = arena.dotsAt(start, vectors.length);
          vectors.forEach((vector, row) => {
            expect(Object.is(dots[row], dotProduct(Float32Array.from(vector), 0, unit, 0, dimensions))).toBe(
              true,
            );
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps what it holds when it grows, and says so by its generation', () => {
    const arena = createArena(3, 3);
    const first = arena.allocate(3);
    arena.floats.set([1, 2, 3], first);
    const before = arena.generation;
    const big = arena.allocate(1_000_000);
    expect(arena.generation).toBeGreaterThan(before);
    expect([...arena.floats.subarray(first, first + 3)]).toEqual([1, 2, 3]);
    arena.floats.set([4, 5, 6], big + 999_997);
    arena.setQuery(Float32Array.from([1, 1, 1]));
    expect(arena.dotsAt(first, 1)[0]).toBe(6);
    expect(arena.dotsAt(big + 999_997, 1)[0]).toBe(15);
    expect(ARENA_BATCH).toBeGreaterThan(0);
  });

  it('declines a size a WebAssembly memory cannot address', () => {
    expect(VectorArena.create(100, 2 ** 31)).toBeNull();
  });
});
