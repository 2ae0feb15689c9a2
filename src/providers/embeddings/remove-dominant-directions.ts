/**
 * "All-but-the-top" post-processing (Mu & Viswanath, ICLR 2018), in place: subtracts the mean vector
 * and projects out the `components` leading principal directions. Raw GloVe vectors share a large
 * common direction that makes every pair of averaged sentences look alike (unrelated sentences score
 * ~0.4); removing it brings unrelated pairs to ~0 and keeps related ones well above.
 * `vectors` holds `count × dimensions` components row by row; returns the directions removed.
 */
export function removeDominantDirections(
  vectors: Float32Array,
  dimensions: number,
  components: number,
): Float64Array[] {
  const rows = Array.from({ length: vectors.length / dimensions }, (_, row) =>
    vectors.subarray(row * dimensions, (row + 1) * dimensions),
  );
  const mean = new Float64Array(dimensions);
  for (const row of rows) addScaled(mean, row, 1 / rows.length);
  for (const row of rows) addScaled(row, mean, -1);

  // Covariance as one row per dimension: covariance[i] = Σ row[i] · row.
  const covariance = Array.from({ length: dimensions }, () => new Float64Array(dimensions));
  for (const row of rows) {
    for (const [index, line] of covariance.entries()) addScaled(line, row, row[index] ?? 0);
  }

  const directions: Float64Array[] = [];
  for (let component = 0; component < components; component++) {
    const direction = leadingEigenvector(covariance);
    directions.push(direction);
    // Deflate: remove this eigenvector's share so the next power iteration finds the next one.
    const eigenvalue = dot(direction, multiply(covariance, direction));
    for (const [index, line] of covariance.entries()) {
      addScaled(line, direction, -eigenvalue * (direction[index] ?? 0));
    }
  }
  for (const row of rows) {
    for (const direction of directions) addScaled(row, direction, -dot(row, direction));
  }
  return directions;
}

/** Power iteration on a symmetric positive semi-definite matrix given as rows. */
function leadingEigenvector(matrix: Float64Array[]): Float64Array {
  let vector: Float64Array = new Float64Array(matrix.length).fill(1 / Math.sqrt(matrix.length));
  for (let iteration = 0; iteration < 1_000; iteration++) {
    const next = multiply(matrix, vector);
    const norm = Math.sqrt(dot(next, next));
    if (norm === 0) break;
    next.forEach((value, index) => {
      next[index] = value / norm;
    });
    const change = next.reduce((sum, value, index) => sum + Math.abs(value - (vector[index] ?? 0)), 0);
    vector = next;
    if (change < 1e-12) break;
  }
  return vector;
}

function multiply(matrix: Float64Array[], vector: Float64Array): Float64Array {
  return Float64Array.from(matrix, (line) => dot(line, vector));
}

function dot(left: ArrayLike<number>, right: ArrayLike<number>): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] ?? 0) * (right[index] ?? 0);
  return sum;
}

/** target += source × factor */
function addScaled(target: Float32Array | Float64Array, source: ArrayLike<number>, factor: number): void {
  for (let index = 0; index < target.length; index++) {
    target[index] = (target[index] ?? 0) + (source[index] ?? 0) * factor;
  }
}
