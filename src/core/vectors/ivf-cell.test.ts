import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createArena, finiteFloats } from '../../../test/support/vector-arena-fixtures.js';
import type { CellCodes } from './cell-codes.js';
import { IvfCell } from './ivf-cell.js';
import { VectorCodes } from './vector-codes.js';

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

describe('IvfCell with codes', () => {
  it('keeps each position’s int8 codes those of its vector, through pushes, removals and growth', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.oneof(fc.constant(-1), fc.nat()), { maxLength: 150 }),
        (dimensions, operations) => {
          // A tiny arena: the cell's growth grows it, and every view is retaken.
          const arena = createArena(dimensions, 4);
          const cell = new IvfCell(dimensions, 2, arena, true);
          const floats = VectorCodes.floatsFor(dimensions, 1);
          const apart = createArena(dimensions, floats);
          const fresh = new VectorCodes(apart, apart.allocate(floats), dimensions, 1);
          let key = 0;
          for (const operation of operations) {
            if (operation === -1 && cell.count > 0) cell.removeAt(key % cell.count);
            else {
              const vector = Float32Array.from({ length: dimensions }, (_, axis) =>
                Math.sin(operation + key * 7 + axis),
              );
              cell.push(key, vector);
            }
            key += 1;
          }
          const codes = cell.codes as CellCodes;
          expect(codes).not.toBeNull();
          for (let position = 0; position < cell.count; position += 1) {
            fresh.write(0, cell.vectors, position * dimensions);
            const row = codes.codes.subarray(position * codes.width, (position + 1) * codes.width);
            expect([...row]).toEqual([...fresh.codes.subarray(0, fresh.width)]);
            expect(codes.scales[position]).toBe(fresh.scales[0]);
            expect(codes.norms[position]).toBe(fresh.norms[0]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps no codes outside an arena, or unless asked to', () => {
    expect(new IvfCell(4, 2, null, true).codes).toBeNull();
    expect(new IvfCell(4, 2, createArena(4, 64)).codes).toBeNull();
  });
});
