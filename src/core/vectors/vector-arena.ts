import { DOT_KERNEL_WASM } from './dot-kernel-wasm.js';

const PAGE_BYTES = 65_536;
/** A WebAssembly memory addresses at most 4 GiB (65,536 pages). */
const MAX_PAGES = 65_536;
/** Vectors whose dot products one kernel call writes: its output area is 8 KB. */
export const ARENA_BATCH = 1_024;

/** The little of the WebAssembly API used here (the project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

let kernel: object | null | undefined;

/** The compiled dot kernel, once per process; null where WebAssembly SIMD is unavailable. */
function kernelModule(): object | null {
  if (kernel === undefined) {
    try {
      const bytes = Uint8Array.from(atob(DOT_KERNEL_WASM), (char) => char.charCodeAt(0));
      kernel = wasm ? new wasm.Module(bytes) : null;
    } catch {
      kernel = null;
    }
  }
  return kernel;
}

type Dots = (vectors: number, count: number, dimensions: number, query: number, out: number) => void;
type CodeBounds = (
  codes: number,
  count: number,
  width: number,
  query: number,
  scales: number,
  norms: number,
  params: number,
  slots: number,
  lows: number,
  highs: number,
  first: number,
) => number;

/**
 * Float32 vectors of one dimension count in one WebAssembly memory, where a SIMD kernel
 * (dot-kernel.wat) computes their dot products with a query 4–5× faster than the JavaScript loop
 * (`npm run bench:vector-scan`), each bit-identical to `dotProduct`'s. Regions are allocated at
 * the end and never freed: an IVF layout's cells live in one arena, and retraining moves them to a
 * new one (the old is collected with its cells), so what a cell leaves behind when it grows is
 * bounded by what it holds. `floats` views the whole memory; growing the memory replaces it (and
 * every view made from it), which `generation` counts.
 */
export class VectorArena {
  /** The whole memory as floats; replaced when the memory grows. */
  floats: Float32Array;
  /** Bumped each time the memory grows: views taken before then are detached. */
  generation = 0;
  private out: Float64Array;
  private query: Float64Array;
  private codeQuery: Int8Array;
  /** Bytes in use, the scratch areas included. */
  private top: number;
  private readonly queryOffset: number;
  private readonly outOffset: number;
  private readonly codeQueryOffset: number;

  private constructor(
    readonly dimensions: number,
    private readonly memory: WasmMemory,
    private readonly dots: Dots,
    private readonly bounds: CodeBounds,
  ) {
    this.queryOffset = 0;
    this.outOffset = align(dimensions * 8);
    this.codeQueryOffset = this.outOffset + ARENA_BATCH * 8;
    this.top = this.codeQueryOffset + codeWidth(dimensions);
    this.floats = new Float32Array(memory.buffer);
    this.query = new Float64Array(memory.buffer, this.queryOffset, dimensions);
    this.out = new Float64Array(memory.buffer, this.outOffset, ARENA_BATCH);
    this.codeQuery = new Int8Array(memory.buffer, this.codeQueryOffset, codeWidth(dimensions));
  }

  /**
   * An arena with room for `floats` floats besides its scratch areas (it grows as needed), or null
   * when WebAssembly cannot give one (no SIMD support, or no memory left to reserve): callers then
   * keep their vectors in ordinary arrays and scan them in JavaScript.
   */
  static create(dimensions: number, floats: number): VectorArena | null {
    const module = kernelModule();
    if (!module || !wasm) return null;
    const bytes = align(dimensions * 8) + ARENA_BATCH * 8 + codeWidth(dimensions) + align(floats * 4);
    const pages = Math.ceil(bytes / PAGE_BYTES);
    if (pages > MAX_PAGES) return null;
    try {
      const memory = new wasm.Memory({ initial: pages });
      const instance = new wasm.Instance(module, { env: { memory } });
      return new VectorArena(
        dimensions,
        memory,
        instance.exports.dots as Dots,
        instance.exports.codeBounds as CodeBounds,
      );
    } catch {
      return null;
    }
  }

  /** The float index of a new region of `floats` floats, or -1 when the memory cannot grow to it. */
  allocate(floats: number): number {
    const end = this.top + align(floats * 4);
    const size = this.memory.buffer.byteLength;
    if (end > size) {
      const pages = size / PAGE_BYTES;
      const needed = Math.ceil((end - size) / PAGE_BYTES);
      // Half again at least, so that a run of small allocations grows the memory a few times only.
      const grow = Math.min(MAX_PAGES - pages, Math.max(needed, Math.ceil(pages / 2)));
      if (grow < needed) return -1;
      try {
        this.memory.grow(grow);
      } catch {
        return -1;
      }
      this.floats = new Float32Array(this.memory.buffer);
      this.query = new Float64Array(this.memory.buffer, this.queryOffset, this.dimensions);
      this.out = new Float64Array(this.memory.buffer, this.outOffset, ARENA_BATCH);
      this.codeQuery = new Int8Array(this.memory.buffer, this.codeQueryOffset, codeWidth(this.dimensions));
      this.generation += 1;
    }
    const start = this.top / 4;
    this.top = end;
    return start;
  }

  /** Makes `unit` the query of the next `dotsAt` calls. */
  setQuery(unit: Float32Array): void {
    this.query.set(unit);
  }

  /**
   * The dot products with the query of the `count` (at most ARENA_BATCH) vectors stored side by
   * side from float index `start`: the first `count` entries of the returned array, valid until
   * the next call.
   */
  dotsAt(start: number, count: number): Float64Array {
    this.dots(start * 4, count, this.dimensions, this.queryOffset, this.outOffset);
    return this.out;
  }

  /** Makes `codes` (`codeWidth(dimensions)` int8 values) the query of the next `codeBoundsAt` calls. */
  setQueryCodes(codes: Int8Array): void {
    this.codeQuery.set(codes);
  }

  /**
   * The kernel's `codeBounds` (dot-kernel.wat) over `count` rows of int8 codes stored side by side
   * from byte `codes` (`codeWidth(dimensions)` bytes each) against the query codes: for row i,
   * slot `first` + i of the float64 scales and L1 norms at `scales` and `norms`, and the five
   * float64 params at `params`;
   * the rows whose lower distance bound is at most the threshold are written out (slot from
   * `first`, low, high) at `slots`, `lows` and `highs`. All are byte offsets of regions the caller
   * allocated in this arena. Returns how many rows were written out.
   */
  codeBoundsAt(
    codes: number,
    count: number,
    regions: { scales: number; norms: number; params: number; slots: number; lows: number; highs: number },
    first: number,
  ): number {
    const { scales, norms, params, slots, lows, highs } = regions;
    const width = codeWidth(this.dimensions);
    return this.bounds(
      codes,
      count,
      width,
      this.codeQueryOffset,
      scales,
      norms,
      params,
      slots,
      lows,
      highs,
      first,
    );
  }
}

/** Bytes of one row of int8 codes of `dimensions` values: rounded up to whole 16-byte lanes. */
export const codeWidth = (dimensions: number): number => align(dimensions);

/** `bytes` rounded up to 16, so that every region starts on a vector lane boundary. */
const align = (bytes: number): number => Math.ceil(bytes / 16) * 16;
