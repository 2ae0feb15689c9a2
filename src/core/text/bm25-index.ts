import { SlotVerdicts } from '../slot-verdicts.js';
import { analyzeText } from './analyze-text.js';
import {
  type Bm25Hit,
  type Ranking,
  scoreSlots,
  sumPostings,
  type TermWeights,
  termScore,
  walkPostings,
} from './bm25-rankings.js';
import { PostingList } from './posting-list.js';
import { TopHits } from './top-hits.js';

export type { Bm25Hit } from './bm25-rankings.js';

/** Okapi BM25 parameters; the defaults are the usual ones (and SQLite FTS5's). */
export interface Bm25Options {
  k1?: number;
  b?: number;
}

/**
 * Ids known to include every document a search's filter accepts (and maybe others): when scoring
 * them costs less than walking the query terms' postings (`WALK_COST`), only they are scored.
 */
export interface Candidates {
  size: number;
  ids: () => Iterable<string>;
  /**
   * The collection the ids come from, when it is one object that changes only as the index does
   * (a partition's set): its ids' slots, sorted, are then kept until the index or its size changes.
   */
  source?: object | undefined;
}

/**
 * Scoring a candidate costs a lookup and a forward search of each query term's list: `terms + 1`
 * units (about 100 ns each here). Walking costs per posting about `WALK_COST` units when the filter
 * rejects most documents (each is asked of the filter and none raises the bar) and next to nothing
 * when it accepts most (MaxScore then skips the common terms' postings), so the walk is weighed by
 * the share of documents the candidates leave out. `npm run bench:bm25-candidates` measures both
 * and the choice (BENCHMARKS.md): at 1M documents a user's 10,000 episodes cost 5 ms scored against
 * 12–87 ms walked, a user's 990,000 facts 340–370 ms scored against 2–4 ms walked.
 */
const WALK_COST = 4;

/**
 * Summing a posting into per-slot scores costs about a quarter of what the MaxScore walk spends
 * on a posting it visits (`npm run bench:bm25-candidates`, BENCHMARKS.md): summing is chosen when
 * the query's postings number at most `SUM_WEIGHT` times those the walk is expected to visit.
 */
const SUM_WEIGHT = 4;

/**
 * Whether summing every posting costs less than the walk is expected to (see `SUM_WEIGHT`): the
 * walk visits the postings outside the longest list, and of the longest list about the share it
 * takes for `limit` documents of the other terms to pass by (they are spread over the slots), after
 * which the longest term alone cannot reach the bar and its list is only probed.
 */
function sumsCheaper(postings: number, longest: number, limit: number): boolean {
  const rest = postings - longest;
  const walked = rest + longest * Math.min(1, limit / rest);
  return postings <= SUM_WEIGHT * walked;
}

/** How `search` ranks, when forced (benchmarks and tests): summing every posting, or MaxScore. */
export type Bm25Plan = 'sum' | 'walk';

export interface Bm25SearchOptions {
  /** Ids that include every document the filter accepts (see `Candidates`). */
  candidates?: Candidates | undefined;
  /** Forces a way of ranking (benchmarks and tests); by default the cheaper one is chosen. */
  plan?: Bm25Plan | undefined;
  /**
   * Names the filter `accept` implements, when its answer for a document changes only with the
   * document (not with time or access): the index then keeps each answer (`SlotVerdicts`) and asks
   * `accept` once per document, until the document is replaced or reported `changed`.
   */
  filterKey?: string | undefined;
}

/**
 * An in-memory BM25 index with incremental add/remove. Search visits only the postings of the
 * query's terms and, with MaxScore pruning, skips most postings of common terms once the best
 * `limit` hits are known to beat anything those terms alone could score (docs/stores/memory.md).
 */
export class Bm25Index<Item = undefined> {
  private readonly k1: number;
  private readonly b: number;
  private readonly postings = new Map<string, PostingList>();
  /** Per slot: the document's id, what the caller attached to it and its distinct terms (undefined once removed). */
  private readonly documents: ({ id: string; item: Item; terms: string[] } | undefined)[] = [];
  /** Per slot: the document's length in terms. */
  private lengths = new Int32Array(1_024);
  private readonly slotById = new Map<string, number>();
  private totalLength = 0;
  private liveCount = 0;
  /** Bumped by every add and remove: what cached candidate slots are checked against. */
  private version = 0;
  /** Sorted slots of a candidate source's ids, at `version` and the source's `size`. */
  private readonly sourceSlots = new WeakMap<object, { version: number; size: number; slots: Int32Array }>();
  /** What filters named by a `filterKey` answered per slot. */
  private readonly verdicts = new SlotVerdicts();

  constructor(options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
  }

  get size(): number {
    return this.liveCount;
  }

  /**
   * Adds (or replaces) a document, with an item that `search` hands to its filter (the caller's
   * record, say, so that filtering needs no lookup by id).
   */
  add(id: string, text: string, ...[item]: Item extends undefined ? [item?: Item] : [item: Item]): void {
    this.remove(id);
    const terms = analyzeText(text);
    const slot = this.documents.length;
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    this.documents.push({ id, item: item as Item, terms: [...counts.keys()] });
    if (slot >= this.lengths.length) {
      const lengths = new Int32Array(this.lengths.length * 2);
      lengths.set(this.lengths);
      this.lengths = lengths;
    }
    this.lengths[slot] = terms.length;
    this.slotById.set(id, slot);
    this.totalLength += terms.length;
    this.liveCount++;
    this.version++;
    for (const [term, frequency] of counts) {
      let list = this.postings.get(term);
      if (!list) {
        list = new PostingList();
        this.postings.set(term, list);
      }
      list.append(slot, frequency, terms.length);
    }
  }

  /** What was attached to the document `id` when it was added (undefined when absent). */
  item(id: string): Item | undefined {
    const slot = this.slotById.get(id);
    return slot === undefined ? undefined : this.documents[slot]?.item;
  }

  /** Removes a document; a no-op when absent. */
  remove(id: string): void {
    const slot = this.slotById.get(id);
    if (slot === undefined) return;
    const document = this.documents[slot];
    if (document) {
      this.totalLength -= this.lengths[slot] ?? 0;
      for (const term of document.terms) {
        const list = this.postings.get(term);
        if (!list) continue;
        list.remove(slot, this.lengths);
        if (list.size === 0) this.postings.delete(term);
      }
    }
    this.documents[slot] = undefined;
    this.slotById.delete(id);
    this.liveCount--;
    this.version++;
  }

  /**
   * Scores documents matching any query term, best first (ties by id). `accept` filters by id
   * before ranking (so filters never shrink a page after the fact) and is asked only about
   * documents that could enter the best `limit`. The result is exactly that of scoring every
   * matching document (`searchExhaustive`), found the cheapest of three ways (`bm25-rankings.ts`):
   * scoring the filter's candidates when they are few, summing every posting by slot, or MaxScore
   * (Turtle & Flood), which walks the postings document by document and, once the `limit`-th best
   * score exceeds what the rarest-weighted terms could add together, never scores documents found
   * only in those terms' lists (they are merely probed for the documents the other terms bring).
   */
  search(
    query: string,
    limit: number,
    accept: (id: string, item: Item) => boolean = () => true,
    options: Bm25SearchOptions = {},
  ): Bm25Hit<Item>[] {
    const terms = this.queryTerms(query);
    if (terms.length === 0 || limit <= 0) return [];
    const { candidates, plan } = options;
    const acceptAt = this.verdicts.acceptor(options.filterKey, this.documents.length, (slot) => {
      const document = this.documents[slot];
      return document !== undefined && accept(document.id, document.item);
    });
    const ranking: Ranking<Item> = {
      terms: terms.flatMap((term) => {
        const list = this.postings.get(term);
        // Absent terms add nothing, so leaving them out keeps the query-term order of every sum.
        return list ? [{ list, idf: this.idf(list) }] : [];
      }),
      limit,
      accept: acceptAt,
      documents: this.documents,
      lengths: this.lengths,
      weights: this.weights(),
    };
    let postings = 0;
    let longest = 0;
    for (const { list } of ranking.terms) {
      postings += list.size;
      longest = Math.max(longest, list.size);
    }
    if (candidates && plan === undefined) {
      const left = 1 - Math.min(1, candidates.size / this.liveCount);
      if (candidates.size * (terms.length + 1) <= postings * WALK_COST * left) {
        return scoreSlots(ranking, this.candidateSlots(candidates));
      }
    }
    const sum = plan === undefined ? sumsCheaper(postings, longest, limit) : plan === 'sum';
    return sum ? sumPostings(ranking, postings) : walkPostings(ranking);
  }

  /**
   * Tells the index that the item of document `id` changed in place in a way a filter may see
   * (a record closed by a merge): what filters answered about it is asked again.
   */
  changed(id: string): void {
    const slot = this.slotById.get(id);
    if (slot !== undefined) this.verdicts.forget(slot);
  }

  /** The same result as `search`, by scoring every matching document: the reference for tests. */
  searchExhaustive(
    query: string,
    limit: number,
    accept: (id: string, item: Item) => boolean = () => true,
  ): Bm25Hit<Item>[] {
    const terms = this.queryTerms(query);
    if (terms.length === 0 || limit <= 0) return [];
    const weights = this.weights();
    const scores = new Map<number, number>();
    for (const term of terms) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = this.idf(list);
      for (let position = 0; position < list.size; position++) {
        const document = list.documents[position] ?? 0;
        const frequency = list.frequencies[position] ?? 0;
        const part = termScore(weights, idf, frequency, this.lengths[document] ?? 0);
        scores.set(document, (scores.get(document) ?? 0) + part);
      }
    }
    const best = new TopHits<Bm25Hit<Item>>(limit);
    for (const [document, score] of scores) {
      const entry = this.documents[document];
      if (entry !== undefined && best.admits(score, entry.id) && accept(entry.id, entry.item)) {
        best.add({ id: entry.id, score, item: entry.item });
      }
    }
    return best.sorted();
  }

  /**
   * The candidates' slots in ascending order (repeats kept: scoring skips them), from the cache
   * when their source is unchanged since they were found (a user's 10,000 episodes are looked up
   * by id and sorted once, not on every turn).
   */
  private candidateSlots(candidates: Candidates): Int32Array {
    const { source } = candidates;
    const cached = source === undefined ? undefined : this.sourceSlots.get(source);
    if (cached && cached.version === this.version && cached.size === candidates.size) return cached.slots;
    const slots: number[] = [];
    for (const id of candidates.ids()) {
      const slot = this.slotById.get(id);
      if (slot !== undefined) slots.push(slot);
    }
    const sorted = Int32Array.from(slots).sort();
    if (source !== undefined) {
      this.sourceSlots.set(source, { version: this.version, size: candidates.size, slots: sorted });
    }
    return sorted;
  }

  private queryTerms(query: string): string[] {
    return this.liveCount === 0 ? [] : [...new Set(analyzeText(query))];
  }

  private weights(): TermWeights {
    return { k1: this.k1, b: this.b, averageLength: this.totalLength / this.liveCount || 1 };
  }

  private idf(list: PostingList): number {
    return Math.log(1 + (this.liveCount - list.size + 0.5) / (list.size + 0.5));
  }
}
