/**
 * One inverted list of an IVF index: unit vectors packed in a growable Float32Array (position i at
 * `i * dimensions`) beside their keys, so that scanning a cell walks contiguous memory. Keys are
 * int32, so reading one yields a small integer that indexes arrays without boxing.
 */
export class IvfCell {
  vectors: Float32Array;
  keys: Int32Array;
  count = 0;

  constructor(
    readonly dimensions: number,
    capacity = 16,
  ) {
    this.vectors = new Float32Array(capacity * dimensions);
    this.keys = new Int32Array(capacity);
  }

  /** Appends a copy of the `dimensions` floats of `vector` from `offset`; returns its position. */
  push(key: number, vector: Float32Array, offset = 0): number {
    if (this.count === this.keys.length) this.grow();
    const position = this.count;
    this.vectors.set(vector.subarray(offset, offset + this.dimensions), position * this.dimensions);
    this.keys[position] = key;
    this.count += 1;
    return position;
  }

  /**
   * Removes the vector at `position` by moving the last one into its place (order does not matter
   * within a cell); returns the key of the moved vector, or undefined when none moved.
   */
  removeAt(position: number): number | undefined {
    const last = this.count - 1;
    this.count = last;
    if (position === last) return undefined;
    const { dimensions } = this;
    this.vectors.copyWithin(position * dimensions, last * dimensions, (last + 1) * dimensions);
    const moved = this.keys[last] as number;
    this.keys[position] = moved;
    return moved;
  }

  private grow(): void {
    const capacity = Math.max(16, this.keys.length * 2);
    const vectors = new Float32Array(capacity * this.dimensions);
    vectors.set(this.vectors);
    const keys = new Int32Array(capacity);
    keys.set(this.keys);
    this.vectors = vectors;
    this.keys = keys;
  }
}
