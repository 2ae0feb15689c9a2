import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NumberColumn } from './number-column.js';

describe('NumberColumn', () => {
  it('reads back what was appended and added, like an array, across chunk edges', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 40_000 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: -5, max: 5 })), { maxLength: 50 }),
        (values, additions) => {
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
          expect(int32.length).toBe(values.length);
          expect(float64.length).toBe(values.length);
          const read = (column: NumberColumn) =>
            Array.from({ length: column.length }, (_, index) => column.at(index));
          expect(read(int32)).toEqual(values);
          expect(read(float64)).toEqual(expected);
          expect(int32.at(values.length)).toBe(0);
        },
      ),
      { numRuns: 30 },
    );
  });
});
