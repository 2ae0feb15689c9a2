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
   * Scores documents matching any query term, best first. `accept` filters by id before ranking
   * (so filters never shrink a page after the fact).
   */
  search(query: string, limit: number, accept: (id: string) => boolean = () => true): Bm25Hit[] {
    if (this.liveCount === 0) return [];
    const averageLength = this.totalLength / this.liveCount || 1;
    const scores = new Map<number, number>();
    for (const term of new Set(analyzeText(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (this.liveCount - list.length + 0.5) / (list.length + 0.5));
      for (const { document, frequency } of list) {
        const length = this.documents[document]?.length ?? 0;
        const normalized = frequency + this.k1 * (1 - this.b + (this.b * length) / averageLength);
        scores.set(document, (scores.get(document) ?? 0) + (idf * frequency * (this.k1 + 1)) / normalized);
      }
    }
    const hits: Bm25Hit[] = [];
    for (const [slot, score] of scores) {
      const id = this.documents[slot]?.id;
      if (id !== undefined && accept(id)) hits.push({ id, score });
    }
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return hits.slice(0, limit);
  }
}
