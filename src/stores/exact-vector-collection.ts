import type { MemoryFilter } from '../core/schemas/memory-record.js';
import { dotProduct, unitDistance, unitVector } from '../core/vectors/dot-product.js';
import { NearestHeap } from '../core/vectors/nearest-heap.js';
import { scanVectors } from '../core/vectors/packed-vectors.js';
import { VectorArena } from '../core/vectors/vector-arena.js';
import { screenedScan, VectorCodes } from '../core/vectors/vector-codes.js';
import type { PartitionFields } from './filter-partitions.js';
import { compareCodePoints } from './memory/list-order.js';
import { RowSlots } from './row-slots.js';

/** Slots a collection has room for at first; it doubles when full. */
const INITIAL_CAPACITY = 16;
/** From this many slots on the vectors live in a WebAssembly memory (below, scanning is quick either way). */
const ARENA_MIN_SLOTS = 256;
/**
 * A filter's partition is scanned slot by slot (its vectors scattered among the others) when it
 * holds fewer than this share of the slots; a wider one is cheaper to scan with all the rest, in
 * order, asking the filter only of vectors near enough to enter the result.
 */
const PARTITION_SHARE = 0.25;
/** From this many rows on a scan of all of them is screened by their int8 codes first (`screenedScan`). */
const SCREENED_MIN_ROWS = 4_096;

/**
 * The vectors of one embedding model in one tenant with the row each belongs to, searched exactly:
 * every answer is the `limit` nearest by cosine distance among the rows a filter accepts, ties by
 * row id (code points), as an exact scan in SQL answers. The unit vectors sit side by side in slot
 * order, in a WebAssembly memory of their own where one is available (scanned by the SIMD kernels
 * of `VectorArena`, screened by int8 codes from 4,096 rows on: about 1.5 ms for 100,000 vectors
 * of 100 dimensions, `npm run bench:exact-scan`), so a scan reads memory in order; a filter is asked only about vectors near enough to enter the result, and its answers are
 * kept per slot until the slot changes. A filter confined to a small partition (a user's episodes,
 * an agent's knowledge) scans that partition only.
 *
 * Unlike `VectorCollection` there is no approximate index: a driver whose servers must answer a
 * search identically (PostgreSQL) can hold this in each process and get the same results anywhere.
 * A removed row's slot is skipped (its row is gone) until a new row takes it.
 */
export class ExactVectorCollection<Row extends { readonly id: string } & PartitionFields> {
  private readonly rowSlots = new RowSlots<Row>();
  /** The arena holding `vectors` (from float index `start`), or null when they are in an ordinary array. */
  private arena: VectorArena | null = null;
  private start = 0;
  private vectors: Float32Array = new Float32Array(0);
  /** Slot i at index i (as long as the room for vectors): the keys `scanVectors` offers to the heap. */
  private identity: Int32Array = new Int32Array(0);
  /** The vectors' int8 codes, in the same arena (none without one). */
  private codes: VectorCodes | null = null;

  /** `screenedMinRows`: from how many rows a full scan is screened by the codes first (tests lower it). */
  constructor(
    readonly dimensions: number,
    private readonly screenedMinRows = SCREENED_MIN_ROWS,
  ) {
    this.grow(INITIAL_CAPACITY);
  }

  /** Rows held. */
  get size(): number {
    return this.rowSlots.size;
  }

  /**
   * Floats reserved for vectors (slots of every row held or freed, and room to grow), with what
   * their int8 codes reserve beside them (codes, scales, norms, the kernel's areas).
   */
  get floats(): number {
    const capacity = this.identity.length;
    return this.vectors.length + (this.codes ? VectorCodes.floatsFor(this.dimensions, capacity) : 0);
  }

  /** Stores (or replaces) the row and vector under `key`; the vector is copied, as a unit vector. */
  set(key: number, row: Row, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new Error(`vector of ${vector.length} dimensions in a collection of ${this.dimensions}`);
    }
    const slot = this.rowSlots.put(key, row);
    if (slot >= this.identity.length) this.grow(this.identity.length * 2);
    const { dimensions } = this;
    const norm = Math.sqrt(dotProduct(vector, 0, vector, 0, dimensions));
    const at = slot * dimensions;
    for (let axis = 0; axis < dimensions; axis += 1) {
      this.vectors[at + axis] = norm > 0 ? (vector[axis] as number) / norm : 0;
    }
    this.codes?.write(slot, this.vectors, at);
  }

  /** Removes the row under `key`; false when there is none. */
  delete(key: number): boolean {
    return this.rowSlots.remove(key) !== undefined;
  }

  /**
   * The `limit` rows nearest to `query` among those `accept` lets through, nearest first, with
   * their cosine distances. `filter`, when given, is the filter `accept` implements (its partitions
   * narrow the scan, and its answers are kept per slot under its JSON); it must not bound
   * `lastAccessed`, which changes without the collection knowing.
   */
  nearestRows(
    query: Float32Array,
    limit: number,
    accept: (row: Row) => boolean,
    filter?: MemoryFilter,
  ): { row: Row; distance: number }[] {
    if (limit <= 0 || this.size === 0) return [];
    const { dimensions, vectors } = this;
    const { rows, partitions, verdicts } = this.rowSlots;
    const unit = unitVector(query);
    const acceptAt = verdicts.acceptor(filter ? JSON.stringify(filter) : undefined, rows.length, (slot) => {
      const row = rows[slot];
      return row !== undefined && accept(row);
    });
    const heap = new NearestHeap(limit, this.tieBreak);
    const narrowed = filter ? partitions.narrowest(filter) : null;
    if (narrowed && narrowed.size < rows.length * PARTITION_SHARE) {
      // The partitions of one union are disjoint (one user, agent or type per row): no repeats.
      for (const slot of narrowed.keys()) {
        const distance = unitDistance(dotProduct(vectors, slot * dimensions, unit, 0, dimensions));
        if (distance <= heap.bound && acceptAt(slot)) heap.offer(slot, distance);
      }
    } else {
      const { codes } = this;
      const screened =
        codes !== null &&
        rows.length >= this.screenedMinRows &&
        screenedScan(codes, vectors, rows.length, unit, heap, limit, acceptAt, this.start);
      const place = this.arena ? { arena: this.arena, start: this.start } : null;
      if (!screened)
        scanVectors(vectors, this.identity, rows.length, dimensions, unit, heap, acceptAt, place);
    }
    return heap.sorted().map(({ key, distance }) => ({ row: rows[key] as Row, distance }));
  }

  /** Equal distances go by row id, by code point. */
  private readonly tieBreak = (left: number, right: number): number =>
    compareCodePoints((this.rowSlots.rows[left] as Row).id, (this.rowSlots.rows[right] as Row).id);

  /**
   * Moves the vectors (and their codes) to room for `capacity` slots: a new arena, sized for both
   * at once, since one that grows would detach the views taken of it.
   */
  private grow(capacity: number): void {
    const { dimensions } = this;
    const floats = capacity * dimensions;
    const codeFloats = VectorCodes.floatsFor(dimensions, capacity);
    const created = capacity >= ARENA_MIN_SLOTS ? VectorArena.create(dimensions, floats + codeFloats) : null;
    const start = created ? created.allocate(floats) : -1;
    const codesStart = created && start >= 0 ? created.allocate(codeFloats) : -1;
    const arena = codesStart >= 0 ? created : null;
    const vectors = arena ? arena.floats.subarray(start, start + floats) : new Float32Array(floats);
    vectors.set(this.vectors);
    const codes = arena ? new VectorCodes(arena, codesStart, dimensions, capacity) : null;
    if (codes) {
      const held = this.vectors.length / dimensions;
      if (this.codes) codes.copy(this.codes, held);
      else for (let slot = 0; slot < held; slot += 1) codes.write(slot, vectors, slot * dimensions);
    }
    this.arena = arena;
    this.start = Math.max(start, 0);
    this.vectors = vectors;
    this.codes = codes;
    this.identity = Int32Array.from({ length: capacity }, (_, slot) => slot);
  }
}
