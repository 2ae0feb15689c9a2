/** Quantized vectors: one float scale per vector and `bits`-wide codes packed LSB-first per row. */
export interface QuantizedVectors {
  scales: Float32Array;
  codes: Uint8Array;
}

/** Bytes one packed vector occupies. */
export function rowBytes(dimensions: number, bits: number): number {
  return Math.ceil((dimensions * bits) / 8);
}

/**
 * Symmetric per-vector quantization: each vector's largest absolute component maps to the top code,
 * so no component clips and a vector's direction survives to within a cosine of ~0.9996 at 6 bits.
 * `vectors` holds `count × dimensions` components row by row.
 */
export function quantizeVectors(vectors: Float32Array, dimensions: number, bits: number): QuantizedVectors {
  const count = vectors.length / dimensions;
  const levels = 2 ** (bits - 1) - 1;
  const bytesPerRow = rowBytes(dimensions, bits);
  const scales = new Float32Array(count);
  const codes = new Uint8Array(bytesPerRow * count);
  for (let row = 0; row < count; row++) {
    const vector = vectors.subarray(row * dimensions, (row + 1) * dimensions);
    let largest = 0;
    for (const value of vector) largest = Math.max(largest, Math.abs(value));
    const scale = largest === 0 ? 1 : largest / levels;
    scales[row] = scale;
    let byte = row * bytesPerRow;
    let accumulator = 0;
    let pendingBits = 0;
    for (const value of vector) {
      accumulator |= (Math.round(value / scale) + levels) << pendingBits;
      pendingBits += bits;
      while (pendingBits >= 8) {
        codes[byte++] = accumulator & 0xff;
        accumulator >>>= 8;
        pendingBits -= 8;
      }
    }
    if (pendingBits > 0) codes[byte] = accumulator & 0xff;
  }
  return { scales, codes };
}

/** Decodes row `row` into `target` (length `dimensions`), multiplied by `weight`, and adds it. */
export function addDequantizedRow(
  quantized: QuantizedVectors,
  row: number,
  bits: number,
  weight: number,
  target: Float32Array,
): void {
  const levels = 2 ** (bits - 1) - 1;
  const mask = (1 << bits) - 1;
  const factor = (quantized.scales[row] ?? 0) * weight;
  let byte = row * rowBytes(target.length, bits);
  let accumulator = 0;
  let pendingBits = 0;
  for (let index = 0; index < target.length; index++) {
    while (pendingBits < bits) {
      accumulator |= (quantized.codes[byte++] ?? 0) << pendingBits;
      pendingBits += 8;
    }
    target[index] = (target[index] ?? 0) + ((accumulator & mask) - levels) * factor;
    accumulator >>>= bits;
    pendingBits -= bits;
  }
}
