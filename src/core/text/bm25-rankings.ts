// The three ways `Bm25Index.search` ranks a query's postings (docs/stores/memory.md): MaxScore's
// walk, per-slot sums, and scoring given slots. Each returns exactly the hits of scoring every
// matching document, with every score summed in query-term order.
import type { PostingList } from './posting-list.js';
import { SlotScores } from './slot-scores.js';
import { type ScoredId, TopHits } from './top-hits.js';

/** A hit, with what the caller attached to its document. */
export type Bm25Hit<Item = undefined> = ScoredId & { item: Item };

/** The filter as the ranking loops ask it: about the document in a slot. */
export type SlotAccept = (slot: number) => boolean;

/** What BM25 weighs a posting with: its parameters and the index's average document length. */
export interface TermWeights {
  k1: number;
  b: number;
  averageLength: number;
}

/** One search's input: the query's terms present in the index, in query order, with their idf. */
export interface Ranking<Item> {
  terms: readonly { list: PostingList; idf: number }[];
  limit: number;
  accept: SlotAccept;
  /** Per slot: the document's id and item (undefined once removed). */
  documents: readonly ({ id: string; item: Item } | undefined)[];
  /** Per slot: the document's length in terms. */
  lengths: Int32Array;
  weights: TermWeights;
}

/** A term's share of a document's score; monotone (also in floating point) in frequency and length. */
export function termScore(weights: TermWeights, idf: number, frequency: number, length: number): number {
  const { k1, b, averageLength } = weights;
  return (idf * frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * length) / averageLength));
}

/** One index's searches at a time: the per-slot sums are shared (see `SlotScores`). */
const slotScores = new SlotScores();

/** Relative slack on score bounds, far above the rounding of a sum of a few positive terms. */
const BOUND_SLACK = 1 + 1e-9;

/** One query term's postings being walked, with its weight and score bound. */
interface Cursor {
  list: PostingList;
  idf: number;
  /** The most this term can add to any document's score. */
  bound: number;
  /** Its position in the query's term order, the order in which scores are summed. */
  order: number;
  position: number;
}

/** The score of the posting under `cursor`, whose document has `length` terms. */
function cursorScore(weights: TermWeights, cursor: Cursor, length: number): number {
  return termScore(weights, cursor.idf, cursor.list.frequencies[cursor.position] as number, length);
}

/** MaxScore over the query terms' postings, document by document (see `Bm25Index.search`). */
export function walkPostings<Item>(ranking: Ranking<Item>): Bm25Hit<Item>[] {
  const { terms, limit, accept, documents, lengths, weights } = ranking;
  const cursors: Cursor[] = terms.map(({ list, idf }, order) => ({
    list,
    idf,
    bound: termScore(weights, idf, list.maxFrequency, list.minLength),
    order,
    position: 0,
  }));
  // Ascending bounds: a prefix of cursors whose bounds sum below the threshold is non-essential.
  cursors.sort((a, b) => a.bound - b.bound);
  const reach: number[] = [];
  for (const cursor of cursors) reach.push(((reach.at(-1) ?? 0) + cursor.bound) * BOUND_SLACK);
  const parts = new Float64Array(terms.length);
  const best = new TopHits<Bm25Hit<Item>>(limit);
  let threshold = Number.NEGATIVE_INFINITY;
  let firstEssential = 0;
  const count = cursors.length;
  for (;;) {
    let document = 0x7fffffff;
    for (let index = firstEssential; index < count; index++) {
      const { list, position } = cursors[index] as Cursor;
      if (position < list.size) document = Math.min(document, list.documents[position] ?? document);
    }
    if (document === 0x7fffffff) break;
    let partial = 0;
    for (let index = firstEssential; index < count; index++) {
      const cursor = cursors[index] as Cursor;
      const { list } = cursor;
      if (cursor.position < list.size && list.documents[cursor.position] === document) {
        const part = cursorScore(weights, cursor, lengths[document] as number);
        parts[cursor.order] = part;
        partial += part;
        cursor.position++;
      }
    }
    // Non-essential terms, largest bound first, while the document can still make the cut.
    let hopeless = false;
    for (let index = firstEssential - 1; index >= 0; index--) {
      if ((partial + (reach[index] ?? 0)) * BOUND_SLACK < threshold) {
        hopeless = true;
        break;
      }
      const cursor = cursors[index] as Cursor;
      const { list } = cursor;
      cursor.position = list.seek(cursor.position, document);
      if (cursor.position < list.size && list.documents[cursor.position] === document) {
        const part = cursorScore(weights, cursor, lengths[document] as number);
        parts[cursor.order] = part;
        partial += part;
      }
    }
    if (!hopeless) {
      // Summed in query-term order, exactly as exhaustive scoring sums it.
      let score = 0;
      for (let order = 0; order < parts.length; order++) score += parts[order] ?? 0;
      // Below the bar, the document's entry (a read from far in memory) is never needed.
      const entry = score < threshold ? undefined : documents[document];
      if (entry !== undefined && best.admits(score, entry.id) && accept(document)) {
        best.add({ id: entry.id, score, item: entry.item });
        threshold = best.worstScore;
        while (firstEssential < count && (reach[firstEssential] ?? 0) < threshold) firstEssential++;
      }
    }
    parts.fill(0);
  }
  return best.sorted();
}

/**
 * Sums every posting of the query's terms into per-slot scores (term by term, in query-term
 * order: the very sums `searchExhaustive` makes), then offers the filter only the sums that can
 * be among the best `limit` (at or above the `limit`-th largest), and the rest only when the
 * filter turned down some of those.
 */
export function sumPostings<Item>(ranking: Ranking<Item>, postings: number): Bm25Hit<Item>[] {
  const { terms, limit, documents, lengths, weights } = ranking;
  slotScores.begin(documents.length, postings);
  try {
    for (const { list, idf } of terms) {
      const { documents: slots, frequencies, size } = list;
      for (let position = 0; position < size; position++) {
        const document = slots[position] as number;
        const frequency = frequencies[position] as number;
        slotScores.add(document, termScore(weights, idf, frequency, lengths[document] as number));
      }
    }
    const bar = slotScores.kthLargest(limit);
    const best = new TopHits<Bm25Hit<Item>>(limit);
    offerSums(ranking, best, bar, true);
    if (!best.full) offerSums(ranking, best, bar, false);
    return best.sorted();
  } finally {
    slotScores.end();
  }
}

/** Offers `best` the summed slots at or above `bar` (`above`), or those below it. */
function offerSums<Item>(
  { documents, accept }: Ranking<Item>,
  best: TopHits<Bm25Hit<Item>>,
  bar: number,
  above: boolean,
): void {
  for (let index = 0; index < slotScores.count; index++) {
    const slot = slotScores.slotAt(index);
    const score = slotScores.sumOf(slot);
    if (score >= bar !== above || score < best.worstScore) continue;
    const entry = documents[slot];
    if (entry !== undefined && best.admits(score, entry.id) && accept(slot)) {
      best.add({ id: entry.id, score, item: entry.item });
    }
  }
}

/**
 * Scores only `ids` (each looked up in the query terms' postings), summing in query-term order as
 * `search` does: the same hits, at a cost that follows the candidates, not the postings. The
 * candidates are taken in slot order, so each term's list is searched forward from where the
 * previous candidate left it (a gallop over the gap, not a binary search of the whole list).
 */
export function scoreSlots<Item>(ranking: Ranking<Item>, sorted: Int32Array): Bm25Hit<Item>[] {
  const { limit, accept, documents, lengths, weights } = ranking;
  const lists = ranking.terms.map(({ list, idf }) => ({ list, idf, position: 0 }));
  const best = new TopHits<Bm25Hit<Item>>(limit);
  let threshold = Number.NEGATIVE_INFINITY;
  for (let at = 0; at < sorted.length; at++) {
    const document = sorted[at] as number;
    if (at > 0 && sorted[at - 1] === document) continue;
    let score = 0;
    let matched = false;
    for (const entry of lists) {
      const { list } = entry;
      const position = list.seek(entry.position, document);
      entry.position = position;
      if (position < list.size && list.documents[position] === document) {
        matched = true;
        const frequency = list.frequencies[position] ?? 0;
        score += termScore(weights, entry.idf, frequency, lengths[document] ?? 0);
      }
    }
    const held = !matched || score < threshold ? undefined : documents[document];
    if (held !== undefined && best.admits(score, held.id) && accept(document)) {
      best.add({ id: held.id, score, item: held.item });
      threshold = best.worstScore;
    }
  }
  return best.sorted();
}
