import { cosineDistance, vectorNorm } from '../memory-rules.js';
import { NearestList, type Neighbour } from './nearest-list.js';

/**
 * The vectors of one embedding model in one tenant, packed into one Float32Array (slot i at
 * `i * dimensions`) with their norms, so that an exact scan walks contiguous memory. Slots of
 * removed vectors are reused. `T` is what owns a vector (the driver's record entry).
 */
export class VectorSpace<T extends { readonly id: string }> {
  private data: Float32Array;
  private norms: Float64Array;
  private readonly owners: (T | undefined)[] = [];
  private readonly free: number[] = [];

  constructor(readonly dimensions: number) {
    this.data = new Float32Array(dimensions * 64);
    this.norms = new Float64Array(64);
  }

  /** Stores a copy of `vector` for `owner`; returns its slot. The caller checked the dimensions. */
  add(owner: T, vector: Float32Array): number {
    const slot = this.free.pop() ?? this.owners.length;
    if (slot === this.owners.length) {
      this.owners.push(owner);
      this.grow(slot + 1);
    } else {
      this.owners[slot] = owner;
    }
    this.data.set(vector, slot * this.dimensions);
    this.norms[slot] = vectorNorm(vector);
    return slot;
  }

  remove(slot: number): void {
    if (this.owners[slot] === undefined) return;
    this.owners[slot] = undefined;
    this.free.push(slot);
  }

  /** The `limit` owners nearest to `query` (cosine distance) among those `accept` lets through. */
  nearest(query: Float32Array, accept: (owner: T) => boolean, limit: number): Neighbour[] {
    const { data, norms, owners, dimensions } = this;
    const queryNorm = vectorNorm(query);
    const nearest = new NearestList(limit);
    for (let slot = 0; slot < owners.length; slot += 1) {
      const owner = owners[slot];
      if (owner === undefined || !accept(owner)) continue;
      // Four accumulators let the CPU overlap the multiply-adds.
      const offset = slot * dimensions;
      let a = 0;
      let b = 0;
      let c = 0;
      let d = 0;
      let axis = 0;
      for (; axis + 3 < dimensions; axis += 4) {
        a += (data[offset + axis] as number) * (query[axis] as number);
        b += (data[offset + axis + 1] as number) * (query[axis + 1] as number);
        c += (data[offset + axis + 2] as number) * (query[axis + 2] as number);
        d += (data[offset + axis + 3] as number) * (query[axis + 3] as number);
      }
      for (; axis < dimensions; axis += 1) a += (data[offset + axis] as number) * (query[axis] as number);
      const distance = cosineDistance(a + b + c + d, queryNorm, norms[slot] as number);
      if (distance <= nearest.bound) nearest.offer(owner.id, distance);
    }
    return nearest.sorted();
  }

  /** Doubles the arrays until `slots` fit. */
  private grow(slots: number): void {
    if (slots <= this.norms.length) return;
    let capacity = this.norms.length;
    while (capacity < slots) capacity *= 2;
    const data = new Float32Array(capacity * this.dimensions);
    data.set(this.data);
    const norms = new Float64Array(capacity);
    norms.set(this.norms);
    this.data = data;
    this.norms = norms;
  }
}
