import { kthLargest } from './kth-largest.js';

/**
 * Score sums by document slot, for summing a query's postings term by term: a dense array indexed
 * by slot (no map, no allocation per search) and the list of slots touched, so that clearing costs
 * what the search touched. Scores are positive, so a sum of 0 means "not touched yet". One
 * instance is shared by every index: searches are synchronous and never interleave.
 */
export class SlotScores {
  private sums = new Float64Array(1_024);
  private touched = new Int32Array(1_024);
  private copies = new Float64Array(1_024);
  /** How many slots have a sum. */
  count = 0;

  /** Starts a search over slots below `slots`, touching at most `postings` of them. */
  begin(slots: number, postings: number): void {
    if (this.sums.length < slots) this.sums = new Float64Array(Math.max(slots, 2 * this.sums.length));
    const touched = Math.min(slots, postings);
    if (this.touched.length < touched) {
      const size = Math.max(touched, 2 * this.touched.length);
      this.touched = new Int32Array(size);
      this.copies = new Float64Array(size);
    }
    this.count = 0;
  }

  /** Adds `part` (> 0) to `slot`'s sum: `0 + part` first, as a sum that starts from nothing. */
  add(slot: number, part: number): void {
    const sum = this.sums[slot] as number;
    if (sum === 0) this.touched[this.count++] = slot;
    this.sums[slot] = sum + part;
  }

  /** The `index`-th slot touched (in the order first touched). */
  slotAt(index: number): number {
    return this.touched[index] as number;
  }

  sumOf(slot: number): number {
    return this.sums[slot] as number;
  }

  /** The `k`-th largest sum (-Infinity when none). */
  kthLargest(k: number): number {
    const { copies, touched, sums, count } = this;
    for (let index = 0; index < count; index++) copies[index] = sums[touched[index] as number] as number;
    return kthLargest(copies, count, k);
  }

  /** Zeroes the sums touched, ready for the next search. */
  end(): void {
    const { touched, sums, count } = this;
    for (let index = 0; index < count; index++) sums[touched[index] as number] = 0;
    this.count = 0;
  }
}
