import { compareCodePoints } from './list-order.js';

export interface Neighbour {
  id: string;
  distance: number;
}

/** Ascending distance, then id by code point (the order SQLite gives with `ORDER BY distance, id`). */
function closer(left: Neighbour, right: Neighbour): boolean {
  return (
    left.distance < right.distance ||
    (left.distance === right.distance && compareCodePoints(left.id, right.id) < 0)
  );
}

/**
 * The `capacity` nearest neighbours offered so far, kept in a max-heap (farthest at the root), so
 * that a scan over n candidates costs O(n log capacity) instead of sorting all n.
 */
export class NearestList {
  private readonly heap: Neighbour[] = [];

  constructor(private readonly capacity: number) {}

  /** The distance a candidate must beat to enter; Infinity while the list is not full. */
  get bound(): number {
    return this.heap.length < this.capacity ? Number.POSITIVE_INFINITY : (this.heap[0]?.distance ?? 0);
  }

  offer(id: string, distance: number): void {
    if (this.capacity <= 0) return;
    const candidate = { id, distance };
    if (this.heap.length < this.capacity) {
      this.heap.push(candidate);
      this.siftUp(this.heap.length - 1);
      return;
    }
    const root = this.heap[0];
    if (root === undefined || !closer(candidate, root)) return;
    this.heap[0] = candidate;
    this.siftDown(0);
  }

  /** The kept neighbours, nearest first. */
  sorted(): Neighbour[] {
    return [...this.heap].sort((left, right) => (closer(left, right) ? -1 : closer(right, left) ? 1 : 0));
  }

  private siftUp(start: number): void {
    const heap = this.heap;
    let index = start;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const node = heap[index] as Neighbour;
      const above = heap[parent] as Neighbour;
      if (!closer(above, node)) return;
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
        if (candidate !== undefined && closer(heap[farthest] as Neighbour, candidate)) farthest = child;
      }
      if (farthest === index) return;
      const node = heap[index] as Neighbour;
      heap[index] = heap[farthest] as Neighbour;
      heap[farthest] = node;
      index = farthest;
    }
  }
}
