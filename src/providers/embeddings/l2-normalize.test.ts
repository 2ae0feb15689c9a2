import { describe, expect, it } from 'vitest';
import { dotProduct, l2Normalize } from './l2-normalize.js';

describe('l2Normalize', () => {
  it('scales to unit length in place', () => {
    const vector = Float32Array.from([3, 4]);
    expect(l2Normalize(vector)).toBe(vector);
    expect([...vector]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(dotProduct(vector, vector)).toBeCloseTo(1, 6);
  });

  it('leaves zero and non-finite vectors as zeros instead of NaN', () => {
    expect([...l2Normalize(new Float32Array(3))]).toEqual([0, 0, 0]);
    expect([...l2Normalize(Float32Array.from([Number.POSITIVE_INFINITY, 1]))]).toEqual([0, 0]);
  });
});
