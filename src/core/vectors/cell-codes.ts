import { codeWidth, type VectorArena } from './vector-arena.js';
import { type CodeRowsTarget, copyCodeRows, writeCodes } from './vector-codes.js';

/**
 * The int8 codes of an IVF cell's vectors (with each row's scale and L1 norm), in the cell's
 * arena beside its vectors, position for position: what `CodeScreen` reads to rule out most of a
 * probed cell before any exact distance. One region of `capacity` rows: codes, then scales, then
 * norms. Views are retaken when the arena's memory grows.
 */
export class CellCodes implements CodeRowsTarget {
  readonly width: number;
  private generation = -1;
  private codeView: Int8Array = new Int8Array(0);
  private scaleView: Float64Array = new Float64Array(0);
  private normView: Float64Array = new Float64Array(0);

  private constructor(
    private readonly arena: VectorArena,
    /** Byte offset of the region in the arena. */
    private readonly at: number,
    readonly dimensions: number,
    readonly capacity: number,
  ) {
    this.width = codeWidth(dimensions);
  }

  /** Room for `capacity` rows in `arena`, or null when its memory cannot grow to it. */
  static allocate(arena: VectorArena, dimensions: number, capacity: number): CellCodes | null {
    const start = arena.allocate(CellCodes.floatsFor(dimensions, capacity));
    return start < 0 ? null : new CellCodes(arena, start * 4, dimensions, capacity);
  }

  /** Floats of an arena that `capacity` rows take. */
  static floatsFor(dimensions: number, capacity: number): number {
    return (capacity * (codeWidth(dimensions) + 16)) / 4;
  }

  /** Byte offsets of the codes, scales and norms of row 0, for the kernel. */
  get bytes(): { codes: number; scales: number; norms: number } {
    const scales = this.at + this.capacity * this.width;
    return { codes: this.at, scales, norms: scales + this.capacity * 8 };
  }

  get codes(): Int8Array {
    this.refresh();
    return this.codeView;
  }

  get scales(): Float64Array {
    this.refresh();
    return this.scaleView;
  }

  get norms(): Float64Array {
    this.refresh();
    return this.normView;
  }

  /** Codes the unit vector at `offset` of `vectors` into row `position`. */
  write(position: number, vectors: Float32Array, offset: number): void {
    writeCodes(this, position, vectors, offset);
  }

  /** Copies row `from` over row `to` (a cell moving its last vector into a hole). */
  move(from: number, to: number): void {
    const { codes, scales, norms, width } = this;
    codes.copyWithin(to * width, from * width, (from + 1) * width);
    scales[to] = scales[from] as number;
    norms[to] = norms[from] as number;
  }

  /** The first `rows` rows in a new region of `capacity` rows of the same arena, or null when it cannot grow. */
  grown(capacity: number, rows: number): CellCodes | null {
    const next = CellCodes.allocate(this.arena, this.dimensions, capacity);
    if (next) copyCodeRows(next, this, rows);
    return next;
  }

  private refresh(): void {
    if (this.generation === this.arena.generation) return;
    const { buffer } = this.arena.floats;
    const { codes, scales, norms } = this.bytes;
    this.codeView = new Int8Array(buffer, codes, this.capacity * this.width);
    this.scaleView = new Float64Array(buffer, scales, this.capacity);
    this.normView = new Float64Array(buffer, norms, this.capacity);
    this.generation = this.arena.generation;
  }
}
