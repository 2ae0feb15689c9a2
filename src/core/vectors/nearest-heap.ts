/** A candidate of a nearest-neighbour search: a row key and its cosine distance to the query. */
export interface Neighbour {
  key: number;
  distance: number;
}

/** Orders keys at equal distance: negative when `left` comes first. */
export type TieBreak = (left: number, right: number) => number;

/** Ascending keys: the tie-break when the caller names none. */
export const ascendingKeys: TieBreak = (left, right) => left - right;

/**
 * The `capacity` nearest neighbours offered so far, in a max-heap (farthest at the root), so that a
 * scan over n candidates costs O(n log capacity) instead of sorting all n.
 */
export class NearestHeap {
  private readonly heap: Neighbour[] = [];

  constructor(
    private readonly capacity: number,
    private readonly tieBreak: TieBreak = ascendingKeys,
  ) {}

  /** How many neighbours it holds (at most its capacity). */
  get size(): number {
    return this.heap.length;
  }

  /** The distance a candidate must not exceed to enter; Infinity while the heap is not full. */
  get bound(): number {
    return this.heap.length < this.capacity ? Number.POSITIVE_INFINITY : (this.heap[0]?.distance ?? 0);
  }

  offer(key: number, distance: number): void {
    if (this.capacity <= 0) return;
    const candidate = { key, distance };
    if (this.heap.length < this.capacity) {
      this.heap.push(candidate);
      this.siftUp(this.heap.length - 1);
      return;
    }
    const root = this.heap[0];
    if (root === undefined || !this.closer(candidate, root)) return;
    this.heap[0] = candidate;
    this.siftDown(0);
  }

  /** The kept neighbours, nearest first. */
  sorted(): Neighbour[] {
    return [...this.heap].sort((left, right) =>
      this.closer(left, right) ? -1 : this.closer(right, left) ? 1 : 0,
    );
  }

  private closer(left: Neighbour, right: Neighbour): boolean {
    return (
      left.distance < right.distance ||
      (left.distance === right.distance && this.tieBreak(left.key, right.key) < 0)
    );
  }

  private siftUp(start: number): void {
    const heap = this.heap;
    let index = start;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const node = heap[index] as Neighbour;
      const above = heap[parent] as Neighbour;
      if (!this.closer(above, node)) return;
      heap[index] = above;
      heap[parent] = node;
      index = parent;
    }
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    let index = start;
    for (;;) {
      let farthest = index;
      for (let child = 2 * index + 1; child <= 2 * index + 2; child += 1) {
        const candidate = heap[child];
        if (candidate !== undefined && this.closer(heap[farthest] as Neighbour, candidate)) farthest = child;
      }
      if (farthest === index) return;
      const node = heap[index] as Neighbour;
      heap[index] = heap[farthest] as Neighbour;
      heap[farthest] = node;
      index = farthest;
    }
  }
}
