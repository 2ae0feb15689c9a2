import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { takeWithinChars } from './take-within-chars.js';

describe('takeWithinChars', () => {
  it('takes the longest prefix within the bound, and always the first item', () => {
    const length = (text: string) => text.length;
    expect(takeWithinChars(['aa', 'bb', 'cc'], length, 4)).toEqual(['aa', 'bb']);
    expect(takeWithinChars(['aa', 'bb', 'cc'], length, 5)).toEqual(['aa', 'bb']);
    expect(takeWithinChars(['aaaaaa', 'b'], length, 4)).toEqual(['aaaaaa']);
    expect(takeWithinChars([], length, 4)).toEqual([]);
    fc.assert(
      fc.property(fc.array(fc.nat(50)), fc.nat(200), (sizes, maxChars) => {
        const taken = takeWithinChars(sizes, (size) => size, maxChars);
        const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
        expect(sizes.slice(0, taken.length)).toEqual(taken);
        if (sizes.length > 0) expect(taken.length).toBeGreaterThan(0);
        if (taken.length > 1) expect(sum(taken)).toBeLessThanOrEqual(maxChars);
        if (taken.length < sizes.length)
          expect(sum(sizes.slice(0, taken.length + 1))).toBeGreaterThan(maxChars);
      }),
    );
  });
});
