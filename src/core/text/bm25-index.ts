import { analyzeText } from './analyze-text.js';

/** Okapi BM25 parameters; the defaults are the usual ones (and SQLite FTS5's). */
export interface Bm25Options {
  k1?: number;
  b?: number;
}

export interface Bm25Hit {
  id: string;
  score: number;
}

interface Posting {
  document: number;
  frequency: number;
}

/**
 * An in-memory BM25 index with incremental add/remove. Search visits only the postings of the
 * query's terms, so its cost follows how common those terms are, not the collection size.
 */
export class Bm25Index {
  private readonly k1: number;
  private readonly b: number;
  private readonly postings = new Map<string, Posting[]>();
  private readonly documents: ({ id: string; length: number; terms: string[] } | undefined)[] = [];
  private readonly slotById = new Map<string, number>();
  private totalLength = 0;
  private liveCount = 0;

  constructor(options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
  }

  get size(): number {
    return this.liveCount;
  }

  /** Adds (or replaces) a document. */
  add(id: string, text: string): void {
    this.remove(id);
    const terms = analyzeText(text);
    const slot = this.documents.length;
    this.documents.push({ id, length: terms.length, terms });
    this.slotById.set(id, slot);
    this.totalLength += terms.length;
    this.liveCount++;
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, frequency] of counts) {
      let list = this.postings.get(term);
      if (!list) {
        list = [];
        this.postings.set(term, list);
      }
      list.push({ document: slot, frequency });
    }
  }

  /** Removes a document; a no-op when absent. Postings are pruned lazily by the live check. */
  remove(id: string): void {
    const slot = this.slotById.get(id);
    if (slot === undefined) return;
    const document = this.documents[slot];
    if (document) {
      this.totalLength -= document.length;
      for (const term of new Set(document.terms)) {
        const list = this.postings.get(term);
        if (!list) continue;
        const kept = list.filter((posting) => posting.document !== slot);
        if (kept.length > 0) this.postings.set(term, kept);
        else this.postings.delete(term);
      }
    }
    this.documents[slot] = undefined;
    this.slotById.delete(id);
    this.liveCount--;
  }

  /**
   * Scores documents matching any query term, best first (ties by id). `accept` filters by id
   * before ranking (so filters never shrink a page after the fact). Scores accumulate in a dense
   * array and only the best `limit` are kept while scanning, so a common term costs one pass over
   * its postings, not a sort of all of them; `accept` is asked only about documents that would
   * enter the kept set.
   */
  search(query: string, limit: number, accept: (id: string) => boolean = () => true): Bm25Hit[] {
    if (this.liveCount === 0 || limit <= 0) return [];
    const averageLength = this.totalLength / this.liveCount || 1;
    const scores = new Float64Array(this.documents.length);
    const matched: number[] = [];
    for (const term of new Set(analyzeText(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (this.liveCount - list.length + 0.5) / (list.length + 0.5));
      for (const { document, frequency } of list) {
        const length = this.documents[document]?.length ?? 0;
        const normalized = frequency + this.k1 * (1 - this.b + (this.b * length) / averageLength);
        if (scores[document] === 0) matched.push(document);
        scores[document] = (scores[document] ?? 0) + (idf * frequency * (this.k1 + 1)) / normalized;
      }
    }
    const best = new TopHits(limit);
    for (const slot of matched) {
      const id = this.documents[slot]?.id;
      const score = scores[slot] ?? 0;
      if (id !== undefined && best.admits(score, id) && accept(id)) best.add({ id, score });
    }
    return best.sorted();
  }
}

/** Better first: higher score, then smaller id. */
const better = (a: Bm25Hit, b: Bm25Hit) => a.score > b.score || (a.score === b.score && a.id < b.id);

/** The best `capacity` hits seen so far, in a binary heap whose root is the worst of them. */
class TopHits {
  private readonly heap: Bm25Hit[] = [];

  constructor(private readonly capacity: number) {}

  /** Whether a hit with this score and id would be kept. */
  admits(score: number, id: string): boolean {
    const worst = this.heap[0];
    return this.heap.length < this.capacity || worst === undefined || better({ id, score }, worst);
  }

  add(hit: Bm25Hit): void {
    const heap = this.heap;
    if (heap.length < this.capacity) {
      heap.push(hit);
      let index = heap.length - 1;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!better(heap[parent] as Bm25Hit, heap[index] as Bm25Hit)) break;
        [heap[parent], heap[index]] = [heap[index] as Bm25Hit, heap[parent] as Bm25Hit];
        index = parent;
      }
      return;
    }
    heap[0] = hit;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let worst = index;
      if (left < heap.length && better(heap[worst] as Bm25Hit, heap[left] as Bm25Hit)) worst = left;
      if (right < heap.length && better(heap[worst] as Bm25Hit, heap[right] as Bm25Hit)) worst = right;
      if (worst === index) return;
      [heap[worst], heap[index]] = [heap[index] as Bm25Hit, heap[worst] as Bm25Hit];
      index = worst;
    }
  }

  sorted(): Bm25Hit[] {
    return [...this.heap].sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  }
}
