/** Entries per chunk: 64 KB of `Int32Array`, 128 KB of `Float64Array`. */
const CHUNK_SHIFT = 14;
const CHUNK = 1 << CHUNK_SHIFT;
const MASK = CHUNK - 1;

type Chunk = Int32Array | Float64Array;

/**
 * A list of numbers that only grows, kept in fixed-size typed-array chunks, so appending never
 * copies what is already stored. A plain array copies its whole backing store each time it
 * outgrows it: at a million entries that is one step of 10–20 ms, which work cut into event-loop
 * slices (the summary of a long session) cannot split.
 */
export class NumberColumn {
  private readonly chunks: Chunk[] = [];
  /** Entries appended so far. */
  length = 0;

  /** `int32` keeps integers in [-2^31, 2^31) at 4 bytes each; `float64` any number at 8. */
  constructor(private readonly kind: 'int32' | 'float64') {}

  push(value: number): void {
    const at = this.length & MASK;
    if (at === 0) this.chunks.push(this.kind === 'int32' ? new Int32Array(CHUNK) : new Float64Array(CHUNK));
    (this.chunks[this.chunks.length - 1] as Chunk)[at] = value;
    this.length++;
  }

  /** The entry at `index` (0 ≤ index < length); 0 outside. */
  at(index: number): number {
    return this.chunks[index >>> CHUNK_SHIFT]?.[index & MASK] ?? 0;
  }

  /** Adds `delta` to the entry at `index` (0 ≤ index < length). */
  add(index: number, delta: number): void {
    const chunk = this.chunks[index >>> CHUNK_SHIFT];
    if (chunk && index < this.length) chunk[index & MASK] = (chunk[index & MASK] ?? 0) + delta;
  }
}
