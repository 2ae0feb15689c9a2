import { SlotVerdicts } from '../core/slot-verdicts.js';
import { FilterPartitions, type PartitionFields } from './filter-partitions.js';

/**
 * The rows of a vector collection by dense slot (what its index or packed vectors are keyed by),
 * with the driver's key of each, the partitions a filter narrows to, and each filter's kept
 * answers per slot. A freed slot is taken by the next new key, so slots stay dense.
 */
export class RowSlots<Row extends PartitionFields> {
  /** The driver's keys (any integers), by the slot each row is held in. */
  readonly slotOf = new Map<number, number>();
  /** Rows by slot; undefined in a freed slot. */
  readonly rows: (Row | undefined)[] = [];
  /** Slots by user, agent, memory type and document presence. */
  readonly partitions = new FilterPartitions<number>();
  /** What each filter answered for each slot; a slot's answers are forgotten when its row changes. */
  readonly verdicts = new SlotVerdicts();
  private readonly freeSlots: number[] = [];

  /** Rows held. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Puts `row` under `key` (in its slot, or a new one) and returns the slot. */
  put(key: number, row: Row): number {
    let slot = this.slotOf.get(key);
    if (slot === undefined) {
      slot = this.freeSlots.pop() ?? this.rows.length;
      this.slotOf.set(key, slot);
    }
    const previous = this.rows[slot];
    if (previous !== undefined) this.partitions.remove(slot, previous);
    this.partitions.add(slot, row);
    this.rows[slot] = row;
    this.verdicts.forget(slot);
    return slot;
  }

  /** Frees the slot of `key` and returns it; undefined when `key` has none. */
  remove(key: number): number | undefined {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return undefined;
    this.slotOf.delete(key);
    const row = this.rows[slot];
    if (row !== undefined) this.partitions.remove(slot, row);
    this.rows[slot] = undefined;
    this.freeSlots.push(slot);
    this.verdicts.forget(slot);
    return slot;
  }
}
