import { describe, expect, it } from 'vitest';
import { addDequantizedRow, quantizeVectors, rowBytes } from './vector-quantization.js';

function cosine(left: Float32Array, right: Float32Array): number {
  let dot = 0;
  let leftSquares = 0;
  let rightSquares = 0;
  for (let index = 0; index < left.length; index++) {
    dot += (left[index] ?? 0) * (right[index] ?? 0);
    leftSquares += (left[index] ?? 0) ** 2;
    rightSquares += (right[index] ?? 0) ** 2;
  }
  return dot / Math.sqrt(leftSquares * rightSquares);
}

describe('vector quantization', () => {
  it.each([4, 5, 6, 7, 8])('packs %i-bit codes into byte-aligned rows and decodes them', (bits) => {
    const dimensions = 37;
    const vectors = Float32Array.from({ length: dimensions * 4 }, (_, index) => Math.sin(index * 1.7) * 3);
    const quantized = quantizeVectors(vectors, dimensions, bits);
    expect(quantized.codes).toHaveLength(rowBytes(dimensions, bits) * 4);
    for (let row = 0; row < 4; row++) {
      const decoded = new Float32Array(dimensions);
      addDequantizedRow(quantized, row, bits, 1, decoded);
      const original = vectors.subarray(row * dimensions, (row + 1) * dimensions);
      expect(cosine(original, decoded)).toBeGreaterThan(bits >= 6 ? 0.999 : 0.98);
      // The largest component maps to the top code, so it decodes exactly (up to float rounding).
      const largest = original.reduce((best, value) => (Math.abs(value) > Math.abs(best) ? value : best), 0);
      expect(decoded[original.indexOf(largest)]).toBeCloseTo(largest, 5);
    }
  });

  it('adds a weighted row onto the target and survives an all-zero vector', () => {
    // At 6 bits the top code is 31, so a vector whose largest component is 31 has scale 1: exact.
    const quantized = quantizeVectors(Float32Array.from([0, 0, 0, 31, -15, 4]), 3, 6);
    const target = Float32Array.from([1, 1, 1]);
    addDequantizedRow(quantized, 0, 6, 2, target);
    expect([...target]).toEqual([1, 1, 1]);
    addDequantizedRow(quantized, 1, 6, 2, target);
    expect([...target]).toEqual([63, -29, 9]);
  });
});
