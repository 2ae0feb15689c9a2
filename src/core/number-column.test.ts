import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NumberColumn } from './number-column.js';

/** Entries per chunk (`number-column.ts`). */
const CHUNK = 1 << 14;

/** `length` int32 values drawn from `seeds`, varying along the column (a read from the wrong chunk shows). */
const valuesFrom = (seeds: readonly number[], length: number): number[] =>
  Array.from(
    { length },
    (_, index) => (Math.imul(index + 1, 0x9e3779b1) ^ (seeds[index % seeds.length] ?? 0)) | 0,
  );

/** Appends `values` (and, halved, to a float64 column), applies `additions`, and reads both back as an array would. */
function checkColumns(values: readonly number[], additions: readonly (readonly [number, number])[]): void {
  const int32 = new NumberColumn('int32');
  const float64 = new NumberColumn('float64');
  const expected = values.map((value) => value / 2);
  for (const value of values) {
    int32.push(value);
    float64.push(value / 2);
  }
  for (const [index, delta] of additions) {
    if (values.length === 0) break;
    const at = index % values.length;
    float64.add(at, delta);
    expected[at] = (expected[at] as number) + delta;
  }
  // Past the end: neither read nor written.
  float64.add(values.length, 1);
  expect(int32.length).toBe(values.length);
  expect(float64.length).toBe(values.length);
  // The first entry read back wrong, or null (a loop: deep equality of arrays this long is slow).
  const mismatch = (column: NumberColumn, wanted: readonly number[]) => {
    const index = wanted.findIndex((value, at) => column.at(at) !== value);
    return index < 0 ? null : { index, read: column.at(index), wanted: wanted[index] };
  };
  expect(mismatch(int32, values)).toBeNull();
  expect(mismatch(float64, expected)).toBeNull();
  expect(int32.at(values.length)).toBe(0);
  expect(float64.at(values.length)).toBe(0);
}

describe('NumberColumn', () => {
  it('reads back what was appended and added, like an array, across chunk edges', () => {
    // Three full chunks and a few entries more, added to on both sides of every edge.
    const length = 3 * CHUNK + 5;
    const edges = [1, 2, 3].flatMap((chunk) => [chunk * CHUNK - 1, chunk * CHUNK]);
    checkColumns(
      valuesFrom([0], length),
      [0, ...edges, length - 1].map((index, step) => [index, step % 2 === 0 ? 3 : -4] as const),
    );
    // Lengths at and around the edges, additions anywhere and at the edges.
    const nearEdge = fc
      .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -3, max: 3 }))
      .map(([chunks, offset]) => Math.max(0, chunks * CHUNK + offset));
    const edge = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: -1, max: 0 }));
    fc.assert(
      fc.property(
        fc.oneof(nearEdge, fc.integer({ min: 0, max: 3 * CHUNK + 10 })),
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 20 }),
        fc.array(
          fc.oneof(
            fc.tuple(fc.nat(), fc.integer({ min: -5, max: 5 })),
            fc
              .tuple(edge, fc.integer({ min: -5, max: 5 }))
              .map(([[chunk, side], delta]) => [chunk * CHUNK + side, delta] as [number, number]),
          ),
          { maxLength: 50 },
        ),
        (length, seeds, additions) => checkColumns(valuesFrom(seeds, length), additions),
      ),
      { numRuns: 60 },
    );
  });
});
