import { describe, expect, it } from 'vitest';
import { removeDominantDirections } from './remove-dominant-directions.js';

describe('removeDominantDirections', () => {
  it('centres the vectors and projects out the dominant direction', () => {
    const dimensions = 4;
    const rows = 200;
    const vectors = new Float32Array(rows * dimensions);
    for (let row = 0; row < rows; row++) {
      const strong = Math.sin(row) * 10; // large variance along (1, 1, 0, 0) / √2
      vectors.set(
        [5 + strong + Math.cos(row * 3), 5 + strong, Math.sin(row * 7), Math.cos(row * 5) - 2],
        row * 4,
      );
    }
    const [direction] = removeDominantDirections(vectors, dimensions, 1);
    expect(Math.abs(direction?.[0] ?? 0)).toBeCloseTo(Math.SQRT1_2, 1);
    expect(Math.abs(direction?.[1] ?? 0)).toBeCloseTo(Math.SQRT1_2, 1);
    for (let column = 0; column < dimensions; column++) {
      let mean = 0;
      for (let row = 0; row < rows; row++) mean += (vectors[row * dimensions + column] ?? 0) / rows;
      expect(mean).toBeCloseTo(0, 4);
    }
    for (let row = 0; row < rows; row++) {
      const vector = vectors.subarray(row * dimensions, (row + 1) * dimensions);
      const projection = vector.reduce((sum, value, index) => sum + value * (direction?.[index] ?? 0), 0);
      expect(projection).toBeCloseTo(0, 4);
    }
  });
});
