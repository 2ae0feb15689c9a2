import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createArena, finiteFloats } from '../../../test/support/vector-arena-fixtures.js';
import { dotProduct } from './dot-product.js';
import { VectorCodes } from './vector-codes.js';

/** `values` as a unit vector (float32), or null when they are all zero. */
function unitOf(values: number[]): Float32Array | null {
  const vector = Float32Array.from(values);
  const norm = Math.sqrt(dotProduct(vector, 0, vector, 0, vector.length));
  return norm > 0 ? vector.map((value) => value / norm) : null;
}

/** The rows tested start at this slot, as a scan's later batches do. */
const FIRST = 7;

describe('VectorCodes', () => {
  it('computes integer dot products of codes exactly, and writes out the rows within the threshold (codeBounds)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }).chain((dimensions) =>
          fc.tuple(
            fc.constant(dimensions),
            fc.array(fc.integer({ min: -127, max: 127 }), { minLength: dimensions, maxLength: dimensions }),
            fc.array(
              fc.array(fc.integer({ min: -127, max: 127 }), { minLength: dimensions, maxLength: dimensions }),
              {
                minLength: 1,
                maxLength: 20,
              },
            ),
            fc.integer({ min: -20_000, max: 20_000 }),
          ),
        ),
        ([dimensions, query, rows, cut]) => {
          const floats = VectorCodes.floatsFor(dimensions, FIRST + rows.length);
          const arena = createArena(dimensions, floats);
          const codes = new VectorCodes(arena, arena.allocate(floats), dimensions, FIRST + rows.length);
          for (const [index, row] of rows.entries()) {
            codes.codes.set(row, (FIRST + index) * codes.width);
            codes.scales[FIRST + index] = 1;
            codes.norms[FIRST + index] = 0;
          }
          const queryCodes = new Int8Array(codes.width);
          queryCodes.set(query);
          arena.setQueryCodes(queryCodes);
          // t = 1, no error: low = high = 1 − d; the threshold keeps rows of d ≥ 1 − threshold.
          codes.params.set([1, 0, 0, 0, 1 - cut]);
          const written = arena.codeBoundsAt(
            codes.start * 4 + FIRST * codes.width,
            rows.length,
            codes.regions,
            FIRST,
          );
          const dots = rows.map((row) =>
            row.reduce((sum, code, axis) => sum + code * (query[axis] as number), 0),
          );
          const kept = dots.flatMap((dot, index) => (dot >= cut ? [index] : []));
          expect(written).toBe(kept.length);
          kept.forEach((index, at) => {
            expect(codes.outSlots[at]).toBe(FIRST + index);
            expect(codes.outLows[at]).toBe(1 - (dots[index] as number));
            expect(codes.outHighs[at]).toBe(1 - (dots[index] as number));
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('bounds how far the coded dot product is from the exact one, for any unit vectors', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 40 })
          .chain((dimensions) =>
            fc.tuple(fc.constant(dimensions), finiteFloats(dimensions), finiteFloats(dimensions)),
          ),
        ([dimensions, vectorValues, queryValues]) => {
          const vector = unitOf(vectorValues);
          const query = unitOf(queryValues);
          if (!vector || !query) return;
          const arena = createArena(dimensions, VectorCodes.floatsFor(dimensions, 2) * 2);
          const codes = new VectorCodes(
            arena,
            arena.allocate(VectorCodes.floatsFor(dimensions, 2)),
            dimensions,
            2,
          );
          codes.write(0, vector, 0);
          codes.write(1, query, 0);
          const width = codes.width;
          const integer = Array.from({ length: dimensions }, (_, axis) => {
            return (codes.codes[axis] as number) * (codes.codes[width + axis] as number);
          }).reduce((sum, product) => sum + product, 0);
          const [scale, queryScale] = [codes.scales[0] as number, codes.scales[1] as number];
          const [norm, queryNorm] = [codes.norms[0] as number, codes.norms[1] as number];
          const bound = (scale / 2) * (queryNorm + (dimensions * queryScale) / 2) + (queryScale / 2) * norm;
          const exact = dotProduct(vector, 0, query, 0, dimensions);
          expect(Math.abs(exact - scale * queryScale * integer)).toBeLessThanOrEqual(bound + 1e-12);
          for (let axis = 0; axis < dimensions; axis += 1) {
            expect(Math.abs(codes.codes[axis] as number)).toBeLessThanOrEqual(127);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
