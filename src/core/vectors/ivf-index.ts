import { CentroidTree } from './centroid-tree.js';
import { dotProduct, unitDistance, unitVector } from './dot-product.js';
import { emptyCells } from './empty-cells.js';
import { IvfCell } from './ivf-cell.js';
import type { IvfIndexOptions, IvfSearchOptions } from './ivf-options.js';
import { NearestHeap, type Neighbour, type TieBreak } from './nearest-heap.js';
import { allocatePacked, nearestPacked, type PackedVectors, scanVectors } from './packed-vectors.js';
import { type CellProbe, screenCells } from './screen-cells.js';
import { seededRandom } from './seeded-random.js';
import type { VectorArena } from './vector-arena.js';
import { VectorCodes } from './vector-codes.js';

export type { IvfIndexOptions, IvfSearchOptions } from './ivf-options.js';

/** Below this many vectors a search scans them all: exact, and nearly as fast as probing cells. */
export const EXACT_SEARCH_THRESHOLD = 5_000;
/** A trained index retrains once it holds this many times the vectors it was trained on… */
const GROWTH_BEFORE_RETRAIN = 2;
/** …or this fraction of them (its cells would be mostly empty)… */
const SHRINK_BEFORE_RETRAIN = 0.25;
/** …or when a cell outgrew both this many mean cells and twice the largest cell at training. */
const UNBALANCED_CELL = 8;
/** Cells probed per search, as a fraction of all cells, and at least. */
const PROBE_FRACTION = 0.06;
const MIN_PROBES = 8;

/** Vectors placed into the new cells per step of `trainInSteps`. */
const PLACE_STEP = 512;

/**
 * An IVF-flat approximate nearest-neighbour index over cosine distance. Vectors are stored as unit
 * copies, packed per cell; cells are the Voronoi regions of k-means centroids (k ≈ √n, see
 * `CentroidTree`). A search ranks the centroids by similarity to the query and scans the nearest
 * `probes` cells (and more until `minScanned` vectors were), computing exact distances there; it
 * keeps probing until it holds `limit` accepted vectors, so a result shorter than `limit` means
 * every vector was scanned. Below `exactThreshold` vectors, or for a zero query (everything at distance 1, ordered
 * only by the tie-break), every vector is scanned: exact results.
 *
 * `add` puts a vector into its nearest cell; training is lazy, at the first search that needs it,
 * and repeats once the index has doubled (or shrunk to a quarter) since, or a cell grew out of
 * proportion, so bulk loads never retrain vector by vector. Pure: no I/O, deterministic per seed.
 *
 * Keys are slots: integers from 0 below 2^31, kept dense by the caller (`VectorCollection` reuses
 * freed ones), since where each key's vector lives is kept in arrays indexed by key.
 */
export class IvfIndex {
  readonly exactThreshold: number;
  private readonly seed: number;
  private readonly useArena: boolean;
  private readonly useCodes: boolean;
  private cells: IvfCell[];
  /** Where the trained layout's cells keep their vectors (null before training, or without WebAssembly). */
  private arena: VectorArena | null = null;
  /**
   * The arena's scratch for screened scans (the kernel's params and outputs: a `VectorCodes` of no
   * rows), or null; its views are retaken when the arena's memory has grown since.
   */
  private screenScratch: VectorCodes | null = null;
  private tree: CentroidTree | null = null;
  /** By key: the cell holding its vector (-1: none) and its position there. */
  private cellOf = new Int32Array(64).fill(-1);
  private positionOf = new Int32Array(64);
  private count = 0;
  private trainedSize = 0;
  private trainedLargest = 0;
  private trainings = 0;
  private unbalanced = false;
  private scannedByLastSearch = 0;
  /** -1: as many as were scanned. */
  private exactByLastSearch = -1;
  /** While `trainInSteps` runs: keys added, replaced or removed since its snapshot. */
  private changedDuringTraining: Set<number> | null = null;

  constructor(
    readonly dimensions: number,
    options: IvfIndexOptions = {},
  ) {
    this.exactThreshold = options.exactThreshold ?? EXACT_SEARCH_THRESHOLD;
    this.seed = options.seed ?? 1;
    this.useArena = options.arena ?? true;
    this.useCodes = options.codes ?? true;
    this.cells = [new IvfCell(dimensions)];
  }

  get size(): number {
    return this.count;
  }

  /**
   * How the index is laid out now: cells, the size it was last trained at (0: never), and whether
   * the trained cells are in a WebAssembly arena.
   */
  get layout(): { cells: number; trainedSize: number; arena: boolean } {
    return { cells: this.cells.length, trainedSize: this.trainedSize, arena: this.arena !== null };
  }

  /** How many vectors the last search computed a distance for: its work, for tests and tuning. */
  get lastScanned(): number {
    return this.scannedByLastSearch;
  }

  /**
   * How many of those got an exact distance: all of them, unless the cells' int8 codes ruled
   * most out first (`codes`).
   */
  get lastExact(): number {
    return this.exactByLastSearch < 0 ? this.scannedByLastSearch : this.exactByLastSearch;
  }

  has(key: number): boolean {
    return (this.cellOf[key] ?? -1) >= 0;
  }

  /** Stores a unit copy of `vector` under `key`, replacing the key's previous vector. */
  add(key: number, vector: Float32Array): void {
    if (!Number.isInteger(key) || key < 0 || key > 0x7fffffff) throw new RangeError(`Invalid slot ${key}`);
    this.remove(key);
    this.changedDuringTraining?.add(key);
    if (key >= this.cellOf.length) this.grow(key + 1);
    const unit = unitVector(vector);
    this.place(key, unit, 0, this.tree ? this.tree.nearestCellExact(unit) : 0);
    this.count += 1;
  }

  /** Removes `key`'s vector; false when there was none. */
  remove(key: number): boolean {
    const cell = this.cellOf[key] ?? -1;
    if (cell < 0) return false;
    this.changedDuringTraining?.add(key);
    const position = this.positionOf[key] as number;
    this.cellOf[key] = -1;
    this.count -= 1;
    const moved = (this.cells[cell] as IvfCell).removeAt(position);
    if (moved !== undefined) this.positionOf[moved] = position;
    return true;
  }

  /** The `limit` nearest accepted vectors to `query`, nearest first (see the class comment). */
  search(query: Float32Array, limit: number, options: IvfSearchOptions = {}): Neighbour[] {
    this.scannedByLastSearch = 0;
    this.exactByLastSearch = -1;
    if (limit <= 0 || this.size === 0) return [];
    if (options.maintain !== false) this.maintain();
    const unit = unitVector(query);
    const heap = new NearestHeap(limit, options.tieBreak);
    const { accept } = options;
    const isZero = unit.every((value) => value === 0);
    if (options.exact || isZero || !this.tree || this.size < this.exactThreshold) {
      for (const cell of this.cells) this.scannedByLastSearch += this.scan(cell, unit, heap, accept);
      return heap.sorted();
    }
    const probes = options.probes ?? Math.max(MIN_PROBES, Math.ceil(this.cells.length * PROBE_FRACTION));
    const minScanned = options.minScanned ?? 0;
    const tree = this.tree;
    // Training places each vector of its snapshot in `nearestCell` (two levels, not always the
    // nearest of all), a vector added later in the nearest of all, which the ranking puts first.
    // Scanning the first one as well means a stored vector always finds itself, and otherwise
    // only adds a cell when the ranking would not reach it.
    const placed = tree.nearestCell(unit);
    const probe: CellProbe = (scanCell, held) => {
      let probed = 0;
      let scanned = scanCell(this.cells[placed] as IvfCell);
      for (const cell of tree.rankCells(unit)) {
        if (probed >= probes && scanned >= minScanned && held() >= limit) break;
        if (cell !== placed) scanned += scanCell(this.cells[cell] as IvfCell);
        probed += 1;
      }
      return scanned;
    };
    const scratch = this.currentScratch();
    const screened = scratch ? screenCells(scratch, unit, limit, heap, accept, probe) : null;
    if (screened) {
      this.scannedByLastSearch = screened.scanned;
      this.exactByLastSearch = screened.exact;
      return heap.sorted();
    }
    this.scannedByLastSearch = probe(
      (cell) => this.scan(cell, unit, heap, accept),
      () => heap.size,
    );
    return heap.sorted();
  }

  private currentScratch(): VectorCodes | null {
    const scratch = this.screenScratch;
    if (!scratch || scratch.generation === scratch.arena.generation) return scratch;
    this.screenScratch = new VectorCodes(scratch.arena, scratch.start, this.dimensions, 0);
    return this.screenScratch;
  }

  /** The `limit` nearest to `query` among `keys` (unknown keys skipped), by exact distance. */
  searchKeys(query: Float32Array, limit: number, keys: Iterable<number>, tieBreak?: TieBreak): Neighbour[] {
    const unit = unitVector(query);
    const heap = new NearestHeap(limit, tieBreak);
    this.scannedByLastSearch = 0;
    this.exactByLastSearch = -1;
    for (const key of keys) {
      const cell = this.cells[this.cellOf[key] ?? -1];
      if (!cell) continue;
      const dot = dotProduct(
        cell.vectors,
        (this.positionOf[key] as number) * this.dimensions,
        unit,
        0,
        this.dimensions,
      );
      heap.offer(key, unitDistance(dot));
      this.scannedByLastSearch += 1;
    }
    return heap.sorted();
  }

  /** The unit vectors of `keys` (all stored), packed side by side for `searchPacked`. */
  pack(keys: Int32Array): PackedVectors {
    const { dimensions } = this;
    const packed = allocatePacked(keys, dimensions, this.useArena);
    const { vectors } = packed;
    keys.forEach((key, index) => {
      const cell = this.cells[this.cellOf[key] ?? -1];
      if (!cell) throw new RangeError(`No vector is stored under slot ${key}`);
      const from = (this.positionOf[key] as number) * dimensions;
      vectors.set(cell.vectors.subarray(from, from + dimensions), index * dimensions);
    });
    return packed;
  }

  /**
   * `searchKeys` over vectors packed by `pack` (which the caller keeps only while those keys'
   * vectors are unchanged): the same result, reading memory in order.
   */
  searchPacked(query: Float32Array, limit: number, packed: PackedVectors, tieBreak?: TieBreak): Neighbour[] {
    this.scannedByLastSearch = packed.keys.length;
    this.exactByLastSearch = -1;
    return nearestPacked(packed, unitVector(query), limit, tieBreak);
  }

  /** Offers the accepted vectors of `cell` to `heap`; returns how many vectors it holds. */
  private scan(
    cell: IvfCell,
    unit: Float32Array,
    heap: NearestHeap,
    accept?: (key: number) => boolean,
  ): number {
    const { keys, count, dimensions } = cell;
    scanVectors(cell.vectors, keys, count, dimensions, unit, heap, accept, cell.inArena);
    return count;
  }

  private place(key: number, data: Float32Array, offset: number, cellIndex: number): void {
    const cell = this.cells[cellIndex] as IvfCell;
    this.cellOf[key] = cellIndex;
    this.positionOf[key] = cell.push(key, data, offset);
    const mean = this.size / this.cells.length;
    if (this.tree && cell.count > Math.max(UNBALANCED_CELL * mean, 2 * this.trainedLargest))
      this.unbalanced = true;
  }

  /** Doubles the per-key arrays until `keys` fit. */
  private grow(keys: number): void {
    let capacity = this.cellOf.length;
    while (capacity < keys) capacity *= 2;
    const cellOf = new Int32Array(capacity).fill(-1);
    cellOf.set(this.cellOf);
    const positionOf = new Int32Array(capacity);
    positionOf.set(this.positionOf);
    this.cellOf = cellOf;
    this.positionOf = positionOf;
  }

  /** Whether the index is big enough to need cells and has none, or has outgrown them. */
  get needsTraining(): boolean {
    const size = this.size;
    if (size < this.exactThreshold) return false;
    const outgrown =
      size > GROWTH_BEFORE_RETRAIN * this.trainedSize || size < SHRINK_BEFORE_RETRAIN * this.trainedSize;
    return !this.tree || outgrown || this.unbalanced;
  }

  private maintain(): void {
    if (this.needsTraining) this.train();
  }

  /** Rebuilds the cells from k-means over all stored vectors (k ≈ √n), in one go. */
  private train(): void {
    const steps = this.trainInSteps();
    while (!steps.next().done) {
      // every step at once
    }
  }

  /**
   * Rebuilds the cells as `train` does, in steps of bounded work (each fine k-means, then
   * `PLACE_STEP` vectors placed), so that a caller can serve searches between them: until the last
   * step, the index keeps its current layout and takes adds and removes as usual. The new layout
   * is built from a snapshot of the vectors; the keys changed meanwhile are placed from their
   * current vectors when it is swapped in, at the last step. At most one run at a time.
   */
  *trainInSteps(): Generator<void, void, void> {
    if (this.changedDuringTraining) throw new Error('The index is already training');
    const { dimensions } = this;
    const size = this.size;
    const data = new Float32Array(size * dimensions);
    const keys = new Int32Array(size);
    let next = 0;
    for (const cell of this.cells) {
      data.set(cell.vectors.subarray(0, cell.count * dimensions), next * dimensions);
      keys.set(cell.keys.subarray(0, cell.count), next);
      next += cell.count;
    }
    const changed = new Set<number>();
    this.changedDuringTraining = changed;
    try {
      const random = seededRandom(this.seed + this.trainings);
      this.trainings += 1;
      const tree = yield* CentroidTree.trainInSteps(
        { data, dimensions },
        Math.round(Math.sqrt(size)),
        random,
      );
      const { cells, arena, scratch } = emptyCells(tree, dimensions, size, {
        arena: this.useArena,
        codes: this.useCodes,
      });
      // Where each snapshot key goes in the new layout (keys are below the capacity at the snapshot).
      const cellOf = new Int32Array(this.cellOf.length).fill(-1);
      const positionOf = new Int32Array(this.cellOf.length);
      for (let index = 0; index < size; index += 1) {
        if (index % PLACE_STEP === PLACE_STEP - 1) yield;
        const key = keys[index] as number;
        if (changed.has(key)) continue;
        const cell = tree.nearestCell(data, index * dimensions);
        cellOf[key] = cell;
        positionOf[key] = (cells[cell] as IvfCell).push(key, data, index * dimensions);
      }
      this.swapIn(tree, cells, cellOf, positionOf, changed);
      this.arena = arena;
      this.screenScratch = scratch;
    } finally {
      this.changedDuringTraining = null;
    }
  }

  /** Makes the new layout current, placing the keys changed since its snapshot from their vectors now. */
  private swapIn(
    tree: CentroidTree,
    cells: IvfCell[],
    snapshotCellOf: Int32Array,
    snapshotPositionOf: Int32Array,
    changed: ReadonlySet<number>,
  ): void {
    const { dimensions } = this;
    const cellOf = new Int32Array(this.cellOf.length).fill(-1);
    cellOf.set(snapshotCellOf);
    const positionOf = new Int32Array(this.cellOf.length);
    positionOf.set(snapshotPositionOf);
    for (const key of changed) {
      // Placed from the snapshot before it changed: that copy is stale.
      const stale = cellOf[key] ?? -1;
      if (stale >= 0) {
        const moved = (cells[stale] as IvfCell).removeAt(positionOf[key] as number);
        if (moved !== undefined) positionOf[moved] = positionOf[key] as number;
        cellOf[key] = -1;
      }
      const current = this.cells[this.cellOf[key] ?? -1];
      if (!current) continue; // removed since
      const offset = (this.positionOf[key] as number) * dimensions;
      const cell = tree.nearestCellExact(current.vectors, offset);
      cellOf[key] = cell;
      positionOf[key] = (cells[cell] as IvfCell).push(key, current.vectors, offset);
    }
    this.cells = cells;
    this.cellOf = cellOf;
    this.positionOf = positionOf;
    this.tree = tree;
    this.trainedSize = this.size;
    this.trainedLargest = Math.max(...cells.map((cell) => cell.count));
    this.unbalanced = false;
  }
}
