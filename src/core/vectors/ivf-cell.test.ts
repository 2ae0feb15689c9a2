import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createArena, finiteFloats } from '../../../test/support/vector-arena-fixtures.js';
import { IvfCell } from './ivf-cell.js';

describe('IvfCell in an arena', () => {
  it('holds the same vectors and keys as a cell in an ordinary array, through pushes and removals', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.tuple(fc.constant('push' as const), finiteFloats(5)),
            fc.tuple(fc.constant('remove' as const), fc.nat()),
          ),
          {
            maxLength: 200,
          },
        ),
        (operations) => {
          const arena = createArena(5, 10);
          const cells = [new IvfCell(5, 2, arena), new IvfCell(5, 2)];
          expect(cells[0]?.inArena).not.toBeNull();
          let key = 0;
          for (const [kind, value] of operations) {
            for (const cell of cells) {
              if (kind === 'push') cell.push(key, Float32Array.from(value));
              else if (cell.count > 0) cell.removeAt(value % cell.count);
            }
            key += 1;
          }
          const [inArena, plain] = cells as [IvfCell, IvfCell];
          expect(inArena.count).toBe(plain.count);
          expect([...inArena.keys.subarray(0, inArena.count)]).toEqual([
            ...plain.keys.subarray(0, plain.count),
          ]);
          expect([...inArena.vectors.subarray(0, inArena.count * 5)]).toEqual([
            ...plain.vectors.subarray(0, plain.count * 5),
          ]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('copies a vector of its own arena before growing detaches it', () => {
    const arena = createArena(4, 4);
    const source = new IvfCell(4, 1, arena);
    source.push(7, Float32Array.from([1, 2, 3, 4]));
    // Full, and its next region will not fit in the arena's first 64 KB: the next push grows the
    // arena's memory, which detaches `source.vectors` as it was read.
    const target = new IvfCell(4, 2_000, arena);
    for (let key = 0; key < 2_000; key++) target.push(key, Float32Array.from([0, 0, 0, 1]));
    const generation = arena.generation;
    target.push(9, source.vectors, 0);
    expect(arena.generation).toBeGreaterThan(generation);
    expect([...target.vectors.subarray(8_000, 8_004)]).toEqual([1, 2, 3, 4]);
  });
});
