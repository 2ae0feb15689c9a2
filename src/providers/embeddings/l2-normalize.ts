/**
 * Scales `vector` in place to unit length and returns it. A zero (or non-finite-norm) vector is
 * left as all zeros rather than filled with NaN, so dot products with it are simply 0.
 */
export function l2Normalize(vector: Float32Array): Float32Array {
  let sumOfSquares = 0;
  for (const value of vector) sumOfSquares += value * value;
  const norm = Math.sqrt(sumOfSquares);
  if (norm === 0 || !Number.isFinite(norm)) {
    vector.fill(0);
    return vector;
  }
  for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] ?? 0) / norm;
  return vector;
}

/** Dot product of two equally long vectors: their cosine similarity when both are unit vectors. */
export function dotProduct(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] ?? 0) * (right[index] ?? 0);
  return sum;
}
