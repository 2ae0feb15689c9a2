import { drainInSlices, nextTurn } from '../core/event-loop-slicer.js';
import type { MemoryFilter } from '../core/schemas/memory-record.js';
import { EXACT_SEARCH_THRESHOLD, IvfIndex, type IvfSearchOptions } from '../core/vectors/ivf-index.js';
import type { Neighbour } from '../core/vectors/nearest-heap.js';
import type { PackedVectors } from '../core/vectors/packed-vectors.js';
import type { PartitionFields } from './filter-partitions.js';
import { compareCodePoints } from './memory/list-order.js';
import { RowSlots } from './row-slots.js';

/** Accepted candidates an index search scans per result asked for, and at least: slack for filters. */
const OVERSAMPLING = 8;
const MIN_CANDIDATES = 200;
/** Rows sampled (evenly over the slots) to estimate the share of them a filter accepts. */
const RATE_SAMPLE = 512;
/** Filters remembered per collection, with what a search learned about them (`rememberedFilters`). */
const REMEMBERED_FILTERS = 64;
/** The most slots remembered for one filter whose partition is scanned whole (its accepted rows). */
const REMEMBERED_SLOTS = 20_000;
/**
 * Vector floats kept packed for remembered slots (`PackedVectors`), per collection, at most; and
 * never more than half the floats the collection itself holds.
 */
const PACKED_FLOATS = 4_000_000;

/** What a search learned about one filter (see `rememberedFilters`). */
interface RememberedFilter {
  version: number;
  share: number | null;
  slots?: Int32Array;
  /** Searches that scanned `slots` (their vectors are packed from the second on). */
  scans: number;
  packed?: PackedVectors | undefined;
}

/**
 * The vectors of one embedding model in one tenant, each with the row it belongs to (what a filter
 * reads), searched by the rule `MemoryRecordStore.searchVector` documents:
 *
 * - The rows the filter accepts are counted, stopping past `EXACT_SEARCH_THRESHOLD`. When that many
 *   or fewer pass (a small tenant, or a narrow filter), their vectors are scanned: exact.
 * - Otherwise the IVF index answers from the cells nearest the query, keeping only accepted rows,
 *   and probing further cells until about max(8 × limit, 200) accepted rows were scanned (the
 *   share a filter accepts is estimated on a sample of rows). Its distances are exact; only a near
 *   neighbour in an unprobed cell can be missed. A result shorter than `limit` means every cell was
 *   scanned, so there is no approximate short answer to fall back from.
 *
 * When the caller passes the filter, the rows counted are those of the smallest partition it
 * confines matches to (its user, agent, memory types or documents: `filter-partitions.ts`), so a
 * narrow filter costs what it matches, not the collection's size; the results are the same. Past
 * the exact threshold, a partition smaller than what the index would scan for the filter is
 * scanned whole instead: exact, and cheaper (an agent's or a user's episodes in a large tenant).
 * What a search learns about a filter (its accepted rows, or its share) is kept until a row
 * changes, so a turn's repeated filters are not asked of every row again.
 *
 * Keys are the driver's row keys (any integers; the index gets dense slots for them); ties at equal
 * distance go by row id, by code point.
 */
export class VectorCollection<Row extends { readonly id: string } & PartitionFields> {
  /** The rows by the dense slot the index knows each under, with their partitions and kept filter answers. */
  private readonly slots = new RowSlots<Row>();
  private readonly rows = this.slots.rows;
  private readonly index: IvfIndex;
  /** The slots a filter accepts, while they are few enough for an exact scan (reused: no garbage). */
  private readonly accepted = new Int32Array(EXACT_SEARCH_THRESHOLD + 1);
  /** The index training in the background, if it is. */
  private training: Promise<void> | null = null;
  /** A background training threw: searches then train in place, where the error reaches a caller. */
  private trainingFailed = false;
  /** Bumped by every change of the rows (`set`, `delete`, `rowsChanged`). */
  private version = 0;
  /**
   * What a search learned about a filter (by its JSON) at `version`: the share of rows it accepts
   * when they are more than `EXACT_SEARCH_THRESHOLD` (null when fewer), and the slots it accepted
   * when they were found by asking it of every row scanned (a small filter's rows, or the partition
   * scanned whole; up to `REMEMBERED_SLOTS`). The same search again skips counting and sampling,
   * and with slots computes distances without asking the filter. The filter must depend only on
   * the rows' fields (the drivers' compiled filters do); any change of a row bumps `version`.
   */
  private readonly rememberedFilters = new Map<string, RememberedFilter>();

  constructor(readonly dimensions: number) {
    this.index = new IvfIndex(dimensions);
  }

  get size(): number {
    return this.slots.size;
  }

  /** How many vectors the last search computed a distance to (for tests and benchmarks). */
  get scannedByLastSearch(): number {
    return this.index.lastScanned;
  }

  keys(): IterableIterator<number> {
    return this.slots.slotOf.keys();
  }

  /** Stores (or replaces) the row and vector under `key`; the vector is copied. */
  set(key: number, row: Row, vector: Float32Array): void {
    this.version += 1;
    this.index.add(this.slots.put(key, row), vector);
  }

  delete(key: number): boolean {
    const slot = this.slots.remove(key);
    if (slot === undefined) return false;
    this.version += 1;
    this.index.remove(slot);
    return true;
  }

  /** Tells the collection that rows it holds were changed in place (their fields, not their vectors). */
  rowsChanged(): void {
    this.version += 1;
    this.slots.verdicts.clear();
  }

  /** `accept` over slots, answering from the filter's kept verdicts (`key` null: none kept). */
  private acceptSlot(key: string | null, accept: (row: Row) => boolean): (slot: number) => boolean {
    const { rowAt } = this;
    return this.slots.verdicts.acceptor(key ?? undefined, this.rows.length, (slot) => accept(rowAt(slot)));
  }

  /**
   * The `limit` rows nearest to `query` among those `accept` lets through, nearest first. `filter`,
   * when given, is the filter `accept` implements: its partitions narrow the rows counted.
   */
  nearest(
    query: Float32Array,
    limit: number,
    accept: (row: Row) => boolean,
    filter?: MemoryFilter,
  ): { id: string; distance: number }[] {
    return this.nearestRows(query, limit, accept, filter).map(({ row, distance }) => ({
      id: row.id,
      distance,
    }));
  }

  /** `nearest`, with each hit's row (what the driver stored with the vector). */
  nearestRows(
    query: Float32Array,
    limit: number,
    accept: (row: Row) => boolean,
    filter?: MemoryFilter,
  ): { row: Row; distance: number }[] {
    if (limit <= 0) return [];
    const { rows, rowAt } = this;
    const narrowed = filter ? this.slots.partitions.narrowest(filter) : null;
    // Access times change without the collection seeing it: such filters are never remembered.
    const key = filter && filter.lastAccessed === undefined ? JSON.stringify(filter) : null;
    const stored = key === null ? undefined : this.rememberedFilters.get(key);
    const known = stored?.version === this.version ? stored : undefined;
    if (known?.share === null && known.slots) {
      return this.scanSlots(query, limit, known.slots, known);
    }
    const acceptAt = this.acceptSlot(key, accept);
    let count = 0;
    if (known) {
      count = EXACT_SEARCH_THRESHOLD + 1;
    } else if (narrowed) {
      for (const slot of narrowed.keys()) {
        if (count > EXACT_SEARCH_THRESHOLD) break;
        const row = rows[slot];
        if (row !== undefined && acceptAt(slot)) this.accepted[count++] = slot;
      }
    } else {
      for (let slot = 0; slot < rows.length && count <= EXACT_SEARCH_THRESHOLD; slot += 1) {
        const row = rows[slot];
        if (row !== undefined && acceptAt(slot)) this.accepted[count++] = slot;
      }
    }
    if (count <= EXACT_SEARCH_THRESHOLD) {
      // A copy only when it is kept: otherwise the reused buffer serves (no garbage per search).
      const slots = key === null ? this.accepted.subarray(0, count) : this.accepted.slice(0, count);
      const remembered = key === null ? undefined : this.remember(key, null, slots);
      return this.scanSlots(query, limit, slots, remembered);
    }
    let share = known?.share ?? undefined;
    if (share === undefined) {
      share = this.acceptedShare(acceptAt);
      if (key !== null) this.remember(key, share);
    }
    const minScanned = Math.ceil(Math.max(limit * OVERSAMPLING, MIN_CANDIDATES) / share);
    // A selective filter would have the index scan about `minScanned` vectors to find enough
    // accepted ones; when its partition is smaller, scanning that partition is cheaper and exact.
    if (narrowed && narrowed.size <= minScanned) {
      if (known?.slots) return this.scanSlots(query, limit, known.slots, known);
      const slots = Int32Array.from(this.acceptedIn(narrowed.keys(), acceptAt));
      const remembered =
        key !== null && slots.length <= REMEMBERED_SLOTS ? this.remember(key, share, slots) : undefined;
      return this.scanSlots(query, limit, slots, remembered);
    }
    const neighbours = this.searchIndex(query, limit, {
      accept: acceptAt,
      tieBreak: this.tieBreak,
      minScanned,
    });
    return neighbours.map(({ key, distance }) => ({ row: rowAt(key), distance }));
  }

  /**
   * The `limit` nearest among `slots` (all accepted), exactly. Slots a filter keeps being asked
   * for (`remembered`) get their vectors packed on their second scan, within `PACKED_FLOATS`.
   */
  private scanSlots(
    query: Float32Array,
    limit: number,
    slots: Int32Array,
    remembered?: RememberedFilter,
  ): { row: Row; distance: number }[] {
    if (remembered && !remembered.packed && remembered.scans++ > 0) remembered.packed = this.pack(slots);
    const neighbours = remembered?.packed
      ? this.index.searchPacked(query, limit, remembered.packed, this.tieBreak)
      : this.index.searchKeys(query, limit, slots, this.tieBreak);
    return neighbours.map(({ key, distance }) => ({ row: this.rowAt(key), distance }));
  }

  /**
   * `slots`' vectors packed (`IvfIndex.pack`), when the index is large enough for its cells to be
   * scattered in memory and the budget allows; stale remembered filters give up theirs first.
   */
  private pack(slots: Int32Array): PackedVectors | undefined {
    const floats = slots.length * this.dimensions;
    if (this.size <= EXACT_SEARCH_THRESHOLD) return undefined;
    const budget = Math.min(PACKED_FLOATS, (this.size * this.dimensions) / 2);
    let used = 0;
    for (const entry of this.rememberedFilters.values()) {
      if (entry.packed && entry.version !== this.version) entry.packed = undefined;
      used += entry.packed?.vectors.length ?? 0;
    }
    return used + floats <= budget ? this.index.pack(slots) : undefined;
  }

  /** The row held in `slot` (callers pass live slots only). */
  private readonly rowAt = (slot: number): Row => this.rows[slot] as Row;

  /** Equal distances go by row id, by code point. */
  private readonly tieBreak = (left: number, right: number): number =>
    compareCodePoints(this.rowAt(left).id, this.rowAt(right).id);

  private remember(key: string, share: number | null, slots?: Int32Array): RememberedFilter {
    const entry: RememberedFilter = { version: this.version, share, scans: 0, ...(slots ? { slots } : {}) };
    this.rememberedFilters.delete(key);
    this.rememberedFilters.set(key, entry);
    if (this.rememberedFilters.size > REMEMBERED_FILTERS) {
      this.rememberedFilters.delete(this.rememberedFilters.keys().next().value as string);
    }
    return entry;
  }

  /** The slots among `slots` whose rows `accept` lets through. */
  private acceptedIn(slots: Iterable<number>, acceptAt: (slot: number) => boolean): number[] {
    const found: number[] = [];
    for (const slot of slots) {
      const row = this.rows[slot];
      if (row !== undefined && acceptAt(slot)) found.push(slot);
    }
    return found;
  }

  /**
   * Starts the index's training in the background when it needs some, as the next search past the
   * exact threshold would (for a driver that just loaded the collection, to have it ready sooner).
   */
  prepare(): void {
    if (!this.trainingFailed && !this.training && this.index.needsTraining) {
      this.training = this.trainInBackground();
    }
  }

  /** Resolves once no background training is under way. */
  async settled(): Promise<void> {
    await this.training;
  }

  /**
   * Searches the index as it is, first starting its training in the background when it needs some
   * (the first search past 5,000 vectors, and after it doubled): no search waits for the build
   * (1–3 s at 100,000 vectors); until it ends, the old layout answers (every vector is scanned
   * while there is none: exact, about 20 ms at 100,000 vectors of 100 dimensions).
   */
  private searchIndex(query: Float32Array, limit: number, options: IvfSearchOptions): Neighbour[] {
    if (this.trainingFailed) return this.index.search(query, limit, options);
    this.prepare();
    return this.index.search(query, limit, { ...options, maintain: false });
  }

  /** Runs the index's training steps in event-loop slices (`drainInSlices`), from a later turn. */
  private async trainInBackground(): Promise<void> {
    try {
      await nextTurn();
      await drainInSlices(this.index.trainInSteps());
    } catch {
      // Training is pure computation: a failure is a defect, so let the next search meet it.
      this.trainingFailed = true;
    } finally {
      this.training = null;
    }
  }

  /** The share of rows `accept` lets through, on an even sample (never 0: no hit means "few"). */
  private acceptedShare(acceptAt: (slot: number) => boolean): number {
    const { rows } = this;
    const step = Math.max(1, Math.floor(rows.length / RATE_SAMPLE));
    let sampled = 0;
    let accepted = 0;
    for (let slot = 0; slot < rows.length; slot += step) {
      const row = rows[slot];
      if (row === undefined) continue;
      sampled += 1;
      if (acceptAt(slot)) accepted += 1;
    }
    return Math.max(accepted, 1) / Math.max(sampled, 1);
  }
}
