import { CellCodes } from './cell-codes.js';
import type { ArenaPlace } from './packed-vectors.js';
import type { VectorArena } from './vector-arena.js';

/**
 * One inverted list of an IVF index: unit vectors packed side by side (position i at
 * `i * dimensions`) beside their keys, so that scanning a cell walks contiguous memory. Keys are
 * int32, so reading one yields a small integer that indexes arrays without boxing. With an
 * `arena`, the vectors live in its WebAssembly memory (scanned there by its SIMD kernel); without
 * one, or once the arena cannot grow, in an ordinary Float32Array. In an arena, `withCodes` also
 * keeps each vector's int8 codes there (`codes`), position for position, for screened scans.
 */
export class IvfCell {
  keys: Int32Array;
  count = 0;
  private storage: Float32Array;
  /** Float index of position 0 in the arena (-1: not in one). */
  private start = -1;
  /** The arena generation `storage` was viewed at. */
  private generation = -1;
  /** The vectors' int8 codes in the arena, or null (no arena, not asked for, or no room left). */
  codes: CellCodes | null = null;

  constructor(
    readonly dimensions: number,
    capacity = 16,
    private arena: VectorArena | null = null,
    withCodes = false,
  ) {
    this.keys = new Int32Array(capacity);
    this.start = arena ? arena.allocate(capacity * dimensions) : -1;
    if (this.start < 0) this.arena = null;
    this.storage = this.arena ? this.view() : new Float32Array(capacity * dimensions);
    if (this.arena && withCodes) this.codes = CellCodes.allocate(this.arena, dimensions, capacity);
  }

  /** The vectors (capacity × dimensions floats); in an arena, a view valid until it grows. */
  get vectors(): Float32Array {
    if (this.arena && this.generation !== this.arena.generation) this.storage = this.view();
    return this.storage;
  }

  /** The arena holding the vectors and where position 0 is in it, or null. */
  get inArena(): ArenaPlace | null {
    return this.arena ? { arena: this.arena, start: this.start } : null;
  }

  /** Appends a copy of the `dimensions` floats of `vector` from `offset`; returns its position. */
  push(key: number, vector: Float32Array, offset = 0): number {
    let source = vector.subarray(offset, offset + this.dimensions);
    if (this.count === this.keys.length) {
      // Growing an arena detaches views of it: copy a vector that is one first.
      if (this.arena && source.buffer === this.arena.floats.buffer) source = source.slice();
      this.grow();
    }
    const position = this.count;
    const vectors = this.vectors;
    vectors.set(source, position * this.dimensions);
    this.codes?.write(position, vectors, position * this.dimensions);
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
    this.codes?.move(last, position);
    const moved = this.keys[last] as number;
    this.keys[position] = moved;
    return moved;
  }

  private view(): Float32Array {
    const arena = this.arena as VectorArena;
    this.generation = arena.generation;
    return arena.floats.subarray(this.start, this.start + this.keys.length * this.dimensions);
  }

  private grow(): void {
    const capacity = Math.max(16, this.keys.length * 2);
    const used = this.count * this.dimensions;
    const start = this.arena ? this.arena.allocate(capacity * this.dimensions) : -1;
    if (this.arena && start >= 0) {
      // The old region stays behind in the arena (see VectorArena).
      this.arena.floats.copyWithin(start, this.start, this.start + used);
      this.start = start;
      this.codes = this.codes?.grown(capacity, this.count) ?? null;
    } else {
      const vectors = new Float32Array(capacity * this.dimensions);
      vectors.set(this.vectors.subarray(0, used));
      this.arena = null;
      this.start = -1;
      this.codes = null;
      this.storage = vectors;
    }
    const keys = new Int32Array(capacity);
    keys.set(this.keys);
    this.keys = keys;
    if (this.arena) this.storage = this.view();
  }
}
