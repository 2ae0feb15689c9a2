import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kthLargest } from './kth-largest.js';

describe('kthLargest', () => {
  it('equals the k-th element of the values sorted descending, repeats and all', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.double({ min: 0, max: 100, noNaN: true })), {
          minLength: 1,
          maxLength: 300,
        }),
        fc.nat(),
        (list, pick) => {
          const k = (pick % list.length) + 1;
          const values = Float64Array.from(list);
          const expected = [...list].sort((a, b) => b - a)[k - 1];
          expect(kthLargest(values, values.length, k)).toBe(expected);
          // Only reordered: the same multiset of values.
          expect([...values].sort((a, b) => a - b)).toEqual([...list].sort((a, b) => a - b));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('looks only at the first `count` values and clamps k', () => {
    const values = Float64Array.from([1, 9, 3, 100, 100]);
    expect(kthLargest(values, 3, 1)).toBe(9);
    expect(kthLargest(values, 3, 3)).toBe(1);
    expect(kthLargest(values, 3, 10)).toBe(1);
    expect(kthLargest(values, 3, 0)).toBe(9);
    expect(kthLargest(values, 0, 1)).toBe(Number.NEGATIVE_INFINITY);
  });
});
