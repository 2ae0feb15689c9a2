import { dotProduct, unitDistance } from './dot-product.js';
import type { NearestHeap } from './nearest-heap.js';
import { ARENA_BATCH, codeWidth, type VectorArena } from './vector-arena.js';

/**
 * Covers the float64 rounding of the bounds themselves (each a handful of operations on values
 * below 1): far above it, far below any distance that matters.
 */
const SLACK = 1e-9;
/** Makes a scale at least max|x| / 127 once rounded, so that no code needs more than ±127. */
const SCALE_MARGIN = 1 + 2 ** -20;
/** The kernel's five float64 params, padded to a 16-byte boundary. */
const PARAMS_BYTES = 48;

/**
 * Int8 codes of unit vectors, one row per slot beside the float32 vectors in the same arena,
 * with each row's scale and L1 norm: a quarter of the bytes to read, so that a scan bound by
 * memory bandwidth can pass over most vectors before computing any exact distance
 * (`screenedScan`).
 *
 * A component x is coded as round(x / s) with s = max|x| / 127 (slightly more), so |x − s·code|
 * ≤ s / 2. For a vector v (scale s, L1 norm ‖v‖₁) and a query q (scale t, codes p) of D
 * dimensions: v·q = s·t·(codes·p) + t·(e·p) + v·f with |e_i| ≤ s/2 and |f_i| ≤ t/2, so
 * |v·q − s·t·(codes·p)| ≤ (s/2)·(‖q‖₁ + D·t/2) + (t/2)·‖v‖₁: a bound per vector and query,
 * proven, not estimated (the integer dot product is exact).
 */
export class VectorCodes {
  readonly width: number;
  /** The codes, `width` bytes a slot, zero past the dimensions. */
  readonly codes: Int8Array;
  readonly scales: Float64Array;
  readonly norms: Float64Array;
  /** The kernel's params (t, F, half, slack, threshold) and what it writes out, in the arena. */
  readonly params: Float64Array;
  readonly outSlots: Int32Array;
  readonly outLows: Float64Array;
  readonly outHighs: Float64Array;
  /** Byte offsets of the regions above, for the kernel. */
  readonly regions: {
    scales: number;
    norms: number;
    params: number;
    slots: number;
    lows: number;
    highs: number;
  };
  /** The arena's generation its views were taken at: they are detached once it has grown. */
  readonly generation: number;
  /**
   * A scan's candidates, their low bounds, and whether the filter already accepted each (1) or
   * was not asked (0) (reused: a scan allocates little).
   */
  candidates = new Int32Array(1_024);
  lows = new Float64Array(1_024);
  accepted = new Uint8Array(1_024);

  /** Codes for `capacity` slots in `arena`, from float index `start` (`floatsFor` floats reserved there). */
  constructor(
    readonly arena: VectorArena,
    readonly start: number,
    readonly dimensions: number,
    capacity: number,
  ) {
    this.width = codeWidth(dimensions);
    this.generation = arena.generation;
    const { buffer } = arena.floats;
    let at = start * 4;
    const take = (bytes: number): number => {
      const offset = at;
      at += bytes;
      return offset;
    };
    this.codes = new Int8Array(buffer, take(capacity * this.width), capacity * this.width);
    this.regions = {
      scales: take(capacity * 8),
      norms: take(capacity * 8),
      params: take(PARAMS_BYTES),
      slots: take(ARENA_BATCH * 4),
      lows: take(ARENA_BATCH * 8),
      highs: take(ARENA_BATCH * 8),
    };
    this.scales = new Float64Array(buffer, this.regions.scales, capacity);
    this.norms = new Float64Array(buffer, this.regions.norms, capacity);
    this.params = new Float64Array(buffer, this.regions.params, 5);
    this.outSlots = new Int32Array(buffer, this.regions.slots, ARENA_BATCH);
    this.outLows = new Float64Array(buffer, this.regions.lows, ARENA_BATCH);
    this.outHighs = new Float64Array(buffer, this.regions.highs, ARENA_BATCH);
  }

  /** Floats of an arena that the codes of `capacity` slots take, with their scales, norms and the kernel's areas. */
  static floatsFor(dimensions: number, capacity: number): number {
    return (capacity * (codeWidth(dimensions) + 16) + PARAMS_BYTES + ARENA_BATCH * 20) / 4;
  }

  /** Codes the unit vector at `offset` of `vectors` into `slot`. */
  write(slot: number, vectors: Float32Array, offset: number): void {
    writeCodes(this, slot, vectors, offset);
  }

  /** Doubles the room for a scan's candidates. */
  growCandidates(): void {
    const candidates = new Int32Array(this.candidates.length * 2);
    candidates.set(this.candidates);
    const lows = new Float64Array(this.lows.length * 2);
    lows.set(this.lows);
    const accepted = new Uint8Array(this.accepted.length * 2);
    accepted.set(this.accepted);
    this.candidates = candidates;
    this.lows = lows;
    this.accepted = accepted;
  }

  /** Copies the first `slots` slots of `from` (a smaller capacity of the same dimensions). */
  copy(from: VectorCodes, slots: number): void {
    copyCodeRows(this, from, slots);
  }
}

/** Where one row's codes, scale and L1 norm go: `VectorCodes`, or an IVF cell's `CellCodes`. */
export interface CodeRowsTarget {
  readonly dimensions: number;
  readonly width: number;
  readonly codes: Int8Array;
  readonly scales: Float64Array;
  readonly norms: Float64Array;
}

/** Copies the first `rows` rows of `from` into `to` (of at least that capacity, the same dimensions). */
export function copyCodeRows(to: CodeRowsTarget, from: CodeRowsTarget, rows: number): void {
  to.codes.set(from.codes.subarray(0, rows * from.width));
  to.scales.set(from.scales.subarray(0, rows));
  to.norms.set(from.norms.subarray(0, rows));
}

/** Codes the unit vector at `offset` of `vectors` into row `slot` of `target`. */
export function writeCodes(
  target: CodeRowsTarget,
  slot: number,
  vectors: Float32Array,
  offset: number,
): void {
  const { dimensions, width, codes } = target;
  let largest = 0;
  let norm = 0;
  for (let axis = 0; axis < dimensions; axis += 1) {
    const size = Math.abs(vectors[offset + axis] as number);
    largest = Math.max(largest, size);
    norm += size;
  }
  const scale = (largest / 127) * SCALE_MARGIN;
  const at = slot * width;
  for (let axis = 0; axis < dimensions; axis += 1) {
    codes[at + axis] = scale > 0 ? Math.round((vectors[offset + axis] as number) / scale) : 0;
  }
  target.scales[slot] = scale;
  target.norms[slot] = norm;
}

/**
 * Makes the unit vector `unit` the query of the next `codeBoundsAt` calls of `codes`' arena: its
 * int8 codes, and the kernel's params t, F, half and slack (the threshold is the caller's).
 */
function setCodeQuery(codes: VectorCodes, unit: Float32Array): void {
  const { dimensions, width, arena, params } = codes;
  let largest = 0;
  let queryNorm = 0;
  for (let axis = 0; axis < dimensions; axis += 1) {
    const size = Math.abs(unit[axis] as number);
    largest = Math.max(largest, size);
    queryNorm += size;
  }
  const queryScale = (largest / 127) * SCALE_MARGIN;
  const queryCodes = new Int8Array(width);
  for (let axis = 0; axis < dimensions; axis += 1) {
    queryCodes[axis] = queryScale > 0 ? Math.round((unit[axis] as number) / queryScale) : 0;
  }
  arena.setQueryCodes(queryCodes);
  // With scale s and integer dot d: the distance is 1 − s·t·d within ± (s·F + half·‖v‖₁), the
  // kernel computing both ends and writing out the rows whose low end is within the bound.
  params[0] = queryScale;
  params[1] = (queryNorm + (dimensions * queryScale) / 2) / 2;
  params[2] = queryScale / 2;
  params[3] = SLACK;
}

/**
 * Offers to `heap` the `count` first unit vectors of `vectors` (slots 0 to count − 1, each with
 * its codes in `codes`) by exact cosine distance to the unit vector `unit`, as `scanVectors`
 * would, bit for bit, computing exact distances only for the vectors the codes cannot rule out.
 * A first pass over the codes bounds each distance within [low, high] and keeps H, the largest
 * of the `heap`'s capacity smallest highs among rows `accept` lets through (asked only when a
 * high would lower H): the true nearest are within H, so a vector whose low is above H cannot be
 * among them. The others (a few hundred of 100,000 in a workload of text embeddings) get their
 * exact distance. Where H is too close to 0 or 2 for the clamped distances to be told apart, it
 * returns false having offered nothing, and the caller scans exactly. `start`: the float index of
 * `vectors` in the codes' arena, when they live there (the kernel then sums the exact distances).
 */
export function screenedScan(
  codes: VectorCodes,
  vectors: Float32Array,
  count: number,
  unit: Float32Array,
  heap: NearestHeap,
  capacity: number,
  accept: (slot: number) => boolean,
  start?: number,
): boolean {
  const screen = new CodeScreen(codes, unit, capacity);
  screen.screen(codes.start * 4, codes.regions.scales, codes.regions.norms, count, accept);
  if (!screen.usable) return false;
  screen.offer(0, screen.found, vectors, heap, accept, (slot) => slot, start);
  return true;
}

/**
 * The two passes of `screenedScan`, over one block of coded rows (a whole collection) or several
 * (the cells an IVF search probes, `screen-cells.ts`): `screen` bounds each row's distance by its
 * codes and keeps H and the rows whose low end is within it; `offer` then computes the exact
 * distances of those rows, block by block. `scratch` lends its arena's query codes, params, output
 * areas and candidate arrays, so one screen runs at a time per arena.
 */
export class CodeScreen {
  private readonly highs: HighestKept;
  private bound = Number.POSITIVE_INFINITY;
  private held = 0;
  private computed = 0;

  constructor(
    private readonly scratch: VectorCodes,
    private readonly unit: Float32Array,
    capacity: number,
  ) {
    setCodeQuery(scratch, unit);
    this.highs = new HighestKept(capacity);
  }

  /** Candidates held (positions within their block, and low ends, in `scratch`). */
  get found(): number {
    return this.held;
  }

  /** Exact distances `offer` computed: the work the codes left. */
  get exact(): number {
    return this.computed;
  }

  /** Rows accepted so far, up to the capacity: what a heap of that capacity offered them would hold. */
  get accepted(): number {
    return this.highs.size;
  }

  /** Whether H lets clamped distances be told apart (else nothing may be offered: scan exactly). */
  get usable(): boolean {
    return this.bound > SLACK && this.bound < 2 - SLACK;
  }

  /**
   * Bounds the `count` rows of a block: codes side by side from byte `codes`, float64 scales and
   * L1 norms from bytes `scales` and `norms` (row 0 first), `accept` asked by position in the
   * block when a row's high end would lower H. Candidates are added from `found` on.
   */
  screen(
    codes: number,
    scales: number,
    norms: number,
    count: number,
    accept: (position: number) => boolean,
  ): void {
    const { scratch, highs } = this;
    const { params, outSlots, outLows, outHighs, width, arena } = scratch;
    const regions = { ...scratch.regions, scales, norms };
    let { bound, held: found } = this;
    for (let from = 0; from < count; from += ARENA_BATCH) {
      const batch = Math.min(ARENA_BATCH, count - from);
      params[4] = bound;
      const written = arena.codeBoundsAt(codes + from * width, batch, regions, from);
      for (let index = 0; index < written; index += 1) {
        const low = outLows[index] as number;
        if (low > bound) continue;
        const position = outSlots[index] as number;
        const high = outHighs[index] as number;
        const asked = high <= bound;
        if (asked) {
          if (!accept(position)) continue;
          bound = highs.offer(high);
        }
        if (found === scratch.candidates.length) scratch.growCandidates();
        scratch.candidates[found] = position;
        scratch.lows[found] = low;
        scratch.accepted[found] = asked ? 1 : 0;
        found += 1;
      }
    }
    this.bound = bound;
    this.held = found;
  }

  /**
   * Offers to `heap`, by exact distance (the same float64 sum as every other path), candidates
   * `from` to `to` − 1, one block's: position p's unit vector at `p * dimensions` of `vectors`,
   * its key `keyOf(p)`, `accept` asked only of those the first pass did not ask. Candidates whose
   * low end is above the final H are skipped unread. With
   * `start`, the float index of the block's position 0 in the scratch's arena, the arena's kernel
   * computes each sum (the same bits, a few times faster than the JavaScript loop).
   */
  offer(
    from: number,
    to: number,
    vectors: Float32Array,
    heap: NearestHeap,
    accept: ((key: number) => boolean) | undefined,
    keyOf: (position: number) => number,
    start?: number,
  ): void {
    const { candidates, lows, accepted, dimensions, arena } = this.scratch;
    const { bound, unit } = this;
    if (start !== undefined) arena.setQuery(unit);
    let nearest = heap.bound;
    for (let at = from; at < to; at += 1) {
      if ((lows[at] as number) > bound) continue;
      this.computed += 1;
      const position = candidates[at] as number;
      const dot =
        start === undefined
          ? dotProduct(vectors, position * dimensions, unit, 0, dimensions)
          : (arena.dotsAt(start + position * dimensions, 1)[0] as number);
      const distance = unitDistance(dot);
      if (distance > nearest) continue;
      const key = keyOf(position);
      // The filter is pure: a candidate it accepted in the first pass is not asked again.
      if (accepted[at] === 0 && accept !== undefined && !accept(key)) continue;
      heap.offer(key, distance);
      nearest = heap.bound;
    }
  }
}

/**
 * The `capacity` smallest numbers offered, in a max-heap of plain floats: `offer` returns the
 * largest of them once there are `capacity` (Infinity until then), as `NearestHeap.bound` does,
 * without an object per offer.
 */
class HighestKept {
  private readonly values: Float64Array;
  private held = 0;

  constructor(private readonly capacity: number) {
    this.values = new Float64Array(Math.max(capacity, 1));
  }

  /** How many numbers it holds (at most its capacity). */
  get size(): number {
    return this.held;
  }

  offer(value: number): number {
    const { values, capacity } = this;
    if (this.held < capacity) {
      let at = this.held++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if ((values[parent] as number) >= value) break;
        values[at] = values[parent] as number;
        at = parent;
      }
      values[at] = value;
    } else if (value < (values[0] as number)) {
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= capacity) break;
        const right = left + 1;
        const larger =
          right < capacity && (values[right] as number) > (values[left] as number) ? right : left;
        if ((values[larger] as number) <= value) break;
        values[at] = values[larger] as number;
        at = larger;
      }
      values[at] = value;
    }
    return this.held < capacity ? Number.POSITIVE_INFINITY : (values[0] as number);
  }
}
