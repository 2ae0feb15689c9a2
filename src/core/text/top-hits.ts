/** A scored document id. */
export interface ScoredId {
  id: string;
  score: number;
}

/** Better first: higher score, then smaller id. */
const better = (scoreA: number, idA: string, scoreB: number, idB: string): boolean =>
  scoreA > scoreB || (scoreA === scoreB && idA < idB);

/** The best `capacity` hits seen so far, in a binary heap whose root is the worst of them. */
export class TopHits<Hit extends ScoredId = ScoredId> {
  private readonly heap: Hit[] = [];

  constructor(private readonly capacity: number) {}

  /** Whether the heap holds `capacity` hits, so that `worstScore` bars entry. */
  get full(): boolean {
    return this.heap.length >= this.capacity;
  }

  /** The score of the worst hit kept (-Infinity while not full). */
  get worstScore(): number {
    return this.full ? (this.heap[0]?.score ?? Number.NEGATIVE_INFINITY) : Number.NEGATIVE_INFINITY;
  }

  /** Whether a hit with this score and id would be kept. */
  admits(score: number, id: string): boolean {
    const worst = this.heap[0];
    return !this.full || worst === undefined || better(score, id, worst.score, worst.id);
  }

  add(hit: Hit): void {
    const heap = this.heap;
    if (heap.length < this.capacity) {
      heap.push(hit);
      let index = heap.length - 1;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        const above = heap[parent] as Hit;
        if (!better(above.score, above.id, hit.score, hit.id)) break;
        heap[index] = above;
        index = parent;
      }
      heap[index] = hit;
      return;
    }
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let worst = hit;
      let at = index;
      const leftHit = heap[left];
      if (leftHit && better(worst.score, worst.id, leftHit.score, leftHit.id)) {
        worst = leftHit;
        at = left;
      }
      const rightHit = heap[right];
      if (rightHit && better(worst.score, worst.id, rightHit.score, rightHit.id)) {
        worst = rightHit;
        at = right;
      }
      if (at === index) break;
      heap[index] = worst;
      index = at;
    }
    heap[index] = hit;
  }

  /** The hits kept, best first. */
  sorted(): Hit[] {
    return [...this.heap].sort((a, b) =>
      better(a.score, a.id, b.score, b.id) ? -1 : better(b.score, b.id, a.score, a.id) ? 1 : 0,
    );
  }
}
