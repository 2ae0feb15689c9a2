/**
 * The dot product of `dimensions` floats of `left` (from `leftOffset`) and `right` (from
 * `rightOffset`): the inner loop of every scan, so vectors can stay packed in one array.
 */
export function dotProduct(
  left: Float32Array,
  leftOffset: number,
  right: Float32Array,
  rightOffset: number,
  dimensions: number,
): number {
  // Four accumulators let the CPU overlap the multiply-adds.
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let axis = 0;
  for (; axis + 3 < dimensions; axis += 4) {
    a += (left[leftOffset + axis] as number) * (right[rightOffset + axis] as number);
    b += (left[leftOffset + axis + 1] as number) * (right[rightOffset + axis + 1] as number);
    c += (left[leftOffset + axis + 2] as number) * (right[rightOffset + axis + 2] as number);
    d += (left[leftOffset + axis + 3] as number) * (right[rightOffset + axis + 3] as number);
  }
  for (; axis < dimensions; axis += 1)
    a += (left[leftOffset + axis] as number) * (right[rightOffset + axis] as number);
  return a + b + c + d;
}

/**
 * The dot products of two consecutive vectors of `left` (from `leftOffset`, then `dimensions`
 * further) with `right`, into `into[0]` and `into[1]`: each summed exactly as `dotProduct` sums
 * it (same accumulators, same order), so results are bit-identical; reading `right` once for
 * both makes a scan about a quarter faster.
 */
export function dotProductPair(
  left: Float32Array,
  leftOffset: number,
  right: Float32Array,
  dimensions: number,
  into: Float64Array,
): void {
  const second = leftOffset + dimensions;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let e = 0;
  let f = 0;
  let g = 0;
  let h = 0;
  let axis = 0;
  for (; axis + 3 < dimensions; axis += 4) {
    const r0 = right[axis] as number;
    const r1 = right[axis + 1] as number;
    const r2 = right[axis + 2] as number;
    const r3 = right[axis + 3] as number;
    a += (left[leftOffset + axis] as number) * r0;
    b += (left[leftOffset + axis + 1] as number) * r1;
    c += (left[leftOffset + axis + 2] as number) * r2;
    d += (left[leftOffset + axis + 3] as number) * r3;
    e += (left[second + axis] as number) * r0;
    f += (left[second + axis + 1] as number) * r1;
    g += (left[second + axis + 2] as number) * r2;
    h += (left[second + axis + 3] as number) * r3;
  }
  for (; axis < dimensions; axis += 1) {
    a += (left[leftOffset + axis] as number) * (right[axis] as number);
    e += (left[second + axis] as number) * (right[axis] as number);
  }
  into[0] = a + b + c + d;
  into[1] = e + f + g + h;
}

/** A unit-length copy of `dimensions` floats of `vector` from `offset`; a zero vector stays zero. */
export function unitVector(
  vector: Float32Array,
  offset = 0,
  dimensions = vector.length - offset,
): Float32Array {
  const unit = vector.slice(offset, offset + dimensions);
  const norm = Math.sqrt(dotProduct(unit, 0, unit, 0, dimensions));
  if (norm > 0) for (let axis = 0; axis < dimensions; axis += 1) unit[axis] = (unit[axis] as number) / norm;
  return unit;
}

/** Cosine distance between unit vectors from their dot product, clamped to [0, 2] (float rounding). */
export function unitDistance(dot: number): number {
  return Math.min(2, Math.max(0, 1 - dot));
}
