import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createArena, finiteFloats } from '../../../test/support/vector-arena-fixtures.js';
import { dotProduct } from './dot-product.js';
import { codeWidth } from './vector-arena.js';
import { VectorCodes } from './vector-codes.js';

/** `values` as a unit vector (float32), or null when they are all zero. */
function unitOf(values: number[]): Float32Array | null {
  const vector = Float32Array.from(values);
  const norm = Math.sqrt(dotProduct(vector, 0, vector, 0, vector.length));
  return norm > 0 ? vector.map((value) => value / norm) : null;
}

describe('VectorCodes', () => {
  it("computes integer dot products of codes exactly (the arena's codeDots kernel)", () => {
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
          ),
        ),
        ([dimensions, query, rows]) => {
          const width = codeWidth(dimensions);
          const arena = createArena(dimensions, (rows.length * width) / 4);
          const start = arena.allocate((rows.length * width) / 4);
          const codes = new Int8Array(arena.floats.buffer, start * 4, rows.length * width);
          for (const [index, row] of rows.entries()) codes.set(row, index * width);
          const queryCodes = new Int8Array(width);
          queryCodes.set(query);
          arena.setQueryCodes(queryCodes);
          const dots = arena.codeDotsAt(start, rows.length);
          rows.forEach((row, index) => {
            expect(dots[index]).toBe(
              row.reduce((sum, code, axis) => sum + code * (query[axis] as number), 0),
            );
          });
        },
      ),
      { numRuns: 200 },
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
