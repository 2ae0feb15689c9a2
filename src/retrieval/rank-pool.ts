import type { MemoryRecord } from '../core/schemas/memory-record.js';
import { takeWithinChars } from '../core/take-within-chars.js';
import type { HitTraits, MemoryRecordStore } from '../stores/memory-record-store.js';
import {
  addNeighborContext,
  asksQuestion,
  type ContextCandidate,
  contextSources,
} from './add-neighbor-context.js';
import { asksWhen, statesWhen } from './asks-when.js';
import type { DateSpan } from './extract-query-dates.js';
import type { FusedHit } from './fuse-rankings.js';
import type { ParsedSearch, SearchHit } from './hybrid-search.js';
import { mentionsEntity } from './mentions-entity.js';
import { resolveRelativeDates } from './resolve-relative-dates.js';

const DAY_MS = 86_400_000;
/** Pool members read past the page's size in the first step. */
const READ_AHEAD = 8;

export interface PoolRankingInput {
  store: MemoryRecordStore;
  tenantId: string;
  request: ParsedSearch;
  query: string;
  /** Dates the query names (their phrases already left out of the matching text). */
  spans: readonly DateSpan[];
  /** The fused candidates, best first: the whole pool, or the page when nothing reorders. */
  ranked: readonly FusedHit[];
  textScores: ReadonlyMap<string, number>;
  distances: ReadonlyMap<string, number>;
  /** The best possible fused score (for `relevance`). */
  maxScore: number;
  now: Date;
  /**
   * Every pool member's traits, when the store gave them: only records that can still reach the
   * best `need` are then read. Null reads the whole pool.
   */
  traits: ReadonlyMap<string, HitTraits> | null;
  /** How many of the best hits must be exact: offset + limit. */
  need: number;
  /**
   * The page's text budget (`maxTextChars`), from `offset`: reading stops once the best hits
   * that no unread member can reach already fill it, and reads in steps sized by the texts read.
   */
  page?: { offset: number; maxChars: number };
}

export interface PoolRanking {
  /** Scored candidates, unordered: every pool member read, and the neighbours that joined it. */
  scored: SearchHit[];
  /** Neighbours that no ranking found and that joined the candidates. */
  added: number;
}

interface Candidate {
  hit: FusedHit;
  memory: MemoryRecord;
  named: boolean;
  dateScore: number;
  entityScore: number;
  own: number;
}

/**
 * Scores the fused pool: dates and entities the query names, context lent by adjacent turns,
 * question, entity, when and recency factors (the formula is `SearchHit.score`'s).
 *
 * Reading every pool member's record costs most of a search in a large tenant (up to 2 × the pool,
 * 400 records for a page of 50). With the pool's traits (session and entities of every hit), the
 * records are read best first, in steps, and reading stops once no unread member can reach the
 * best `need`: its score is bounded above by its fused score plus the largest date and entity
 * boosts it could get, times the largest factors; context goes only to the neighbours of the
 * context sources, which are read. The sources themselves (the best few by own score) are settled
 * first, the same way. The result is the one reading the whole pool gives (a property test checks
 * it), as long as no record changes between the search and its read.
 */
export async function rankPool(input: PoolRankingInput): Promise<PoolRanking> {
  const { store, tenantId, request, query, spans, traits } = input;
  const namesEntity = mentionsEntity(query);
  const inPool = new Map(input.ranked.map((hit) => [hit.id, hit]));
  const pending = new Set(input.ranked);
  const candidates: Candidate[] = [];
  const read = new Set<string>();

  const toCandidate = (hit: FusedHit, memory: MemoryRecord): Candidate => {
    const dateScore = matchesDates(memory, spans) ? request.dateBoost : 0;
    const named = namesEntity(memory.entities);
    const entityScore = request.entityBoost > 0 && named ? request.entityBoost : 0;
    return { hit, memory, named, dateScore, entityScore, own: hit.score + dateScore + entityScore };
  };
  /** Reads the given members (and ids that joined), in one store call; absent records drop out. */
  const readHits = async (hits: readonly FusedHit[]): Promise<Candidate[]> => {
    const wanted = hits.filter((hit) => !read.has(hit.id));
    for (const hit of wanted) {
      read.add(hit.id);
      pending.delete(inPool.get(hit.id) as FusedHit);
    }
    if (wanted.length === 0) return [];
    const memories = await store.getMemories(
      tenantId,
      wanted.map((hit) => hit.id),
    );
    const records = new Map(memories.map((memory) => [memory.id, memory]));
    const found = wanted.flatMap((hit) => {
      const memory = records.get(hit.id);
      return memory ? [toCandidate(hit, memory)] : [];
    });
    candidates.push(...found);
    return found;
  };
  const named = (hit: FusedHit) => namesEntity(traits?.get(hit.id)?.entities ?? []);
  const ownBound = (hit: FusedHit) =>
    hit.score +
    (spans.length > 0 ? request.dateBoost : 0) +
    (request.entityBoost > 0 && named(hit) ? request.entityBoost : 0);
  /** Pending members that `only` accepts, best `bound` first, for `take` to read from. */
  const queue = (bound: (hit: FusedHit) => number, only = (_: FusedHit) => true) => {
    const ordered = [...pending].filter(only).map((hit) => ({ hit, bound: bound(hit) }));
    ordered.sort((a, b) => b.bound - a.bound);
    let at = 0;
    const skipRead = () => {
      while (at < ordered.length && read.has((ordered[at] as { hit: FusedHit }).hit.id)) at++;
    };
    return {
      /** The best bound still pending (-Infinity when none is). */
      top(): number {
        skipRead();
        return ordered[at]?.bound ?? Number.NEGATIVE_INFINITY;
      },
      /** Reads the next `count` pending members, and after them those bounded by `floor` or more. */
      take(count: number, floor = Number.POSITIVE_INFINITY): Promise<Candidate[]> {
        const next: FusedHit[] = [];
        for (skipRead(); at < ordered.length; at++) {
          const entry = ordered[at] as { hit: FusedHit; bound: number };
          if (next.length >= count && entry.bound < floor) break;
          if (!read.has(entry.hit.id)) next.push(entry.hit);
        }
        return readHits(next);
      },
    };
  };

  if (traits === null) await readHits(input.ranked);

  // The context sources: the best few by own score among members of a conversation.
  const options = request.neighbors;
  const lends = options.window > 0 && options.weight > 0;
  const asSource = ({ memory, own }: Candidate): ContextCandidate => ({
    id: memory.id,
    score: own,
    sessionId: memory.sessionId,
    asks: asksQuestion(memory.text),
  });
  const inConversation = (hit: FusedHit) => traits?.get(hit.id)?.sessionId != null;
  let sources: ContextCandidate[] = [];
  if (lends) {
    const rivals = queue(ownBound, inConversation);
    for (;;) {
      sources = contextSources(candidates.map(asSource), options);
      const rival = rivals.top();
      const weakest = sources[options.sources - 1];
      if (rival <= 0 || (weakest && weakest.score > rival)) break;
      await rivals.take(options.sources + 2);
    }
  }
  let context = new Map<string, number>();
  let added = 0;
  if (sources.length > 0) {
    const adjacent = await store.sessionNeighbors(
      tenantId,
      sources.map((source) => source.id),
      request.filter,
      options.window,
    );
    context = addNeighborContext(sources, adjacent, options);
    // Neighbours in the pool keep their fused score; those no ranking found join with 0.
    const joining = [...context.keys()].filter((id) => !read.has(id));
    const joined = await readHits(joining.map((id) => inPool.get(id) ?? { id, score: 0, ranks: [] }));
    added = joined.filter((candidate) => !inPool.has(candidate.memory.id)).length;
  }

  // The query names an entity of some candidate: those that carry entities but not it weigh less.
  const namesCandidate =
    request.entityWeight !== 1 &&
    (candidates.some((candidate) => candidate.named) || [...pending].some((hit) => named(hit)));
  const whenQuery = request.whenWeight !== 1 && asksWhen(query);
  const recency = request.recency;
  const score = (candidate: Candidate): SearchHit => {
    const { hit, memory, named: isNamed, dateScore, entityScore, own } = candidate;
    const factor = recency.weight > 0 ? recencyFactor(memory, recency, input.now) : 1;
    const contextScore = context.get(memory.id) ?? 0;
    const questionFactor =
      request.questionWeight !== 1 && memory.sessionId !== null && asksQuestion(memory.text)
        ? request.questionWeight
        : 1;
    const entityFactor = namesCandidate && !isNamed && memory.entities.length > 0 ? request.entityWeight : 1;
    const whenFactor = whenQuery && statesWhen(memory.text) ? request.whenWeight : 1;
    const unscaled = (own * questionFactor + contextScore) * entityFactor * whenFactor;
    return {
      memory,
      score: unscaled * factor,
      relevance: Math.min(1, unscaled / input.maxScore),
      textRank: hit.ranks[0] ?? null,
      textScore: input.textScores.get(hit.id) ?? null,
      vectorRank: hit.ranks[1] ?? null,
      distance: input.distances.get(hit.id) ?? null,
      dateScore,
      entityScore,
      contextScore,
      questionFactor,
      entityFactor,
      whenFactor,
      recencyFactor: factor,
      similarity: null,
    };
  };
  const scored = candidates.map(score);

  // The rest of the pool, read best bound first until none can reach the best `need`.
  const entityBound = (hit: FusedHit) =>
    namesCandidate && !named(hit) && (traits?.get(hit.id)?.entities.length ?? 0) > 0
      ? request.entityWeight
      : 1;
  const factorBound = (whenQuery ? request.whenWeight : 1) * (recency.weight > 0 ? 1 + recency.weight : 1);
  const bound = (hit: FusedHit) => ownBound(hit) * entityBound(hit) * factorBound;
  // Reading more only raises the `need`-th best score, so every member bounded at or above it now
  // is read in one step, after which none left can reach it.
  const rest = queue(bound);
  while (rest.top() > Number.NEGATIVE_INFINITY) {
    if (input.page && pageFilled(scored, rest.top(), input.page)) break;
    const missing = input.need - scored.length;
    const floor = missing > 0 ? Number.POSITIVE_INFINITY : nthBest(scored, input.need);
    if (missing <= 0 && floor > rest.top()) break;
    const step = input.page ? Math.min(missing, textStep(candidates, input.page.maxChars)) : missing;
    scored.push(...(await rest.take(missing > 0 ? step + READ_AHEAD : 0, floor)).map(score));
  }
  return { scored, added };
}

/** Each record's size, measured once (a page's check reads it again for every step). */
const measured = new WeakMap<MemoryRecord, number>();

/**
 * A record's size in a page bounded by text (`maxTextChars`): its text's characters and, when it
 * has any, its metadata's as JSON (a client's metadata can dwarf the text; it goes out with it).
 */
export function recordChars(memory: MemoryRecord): number {
  let chars = measured.get(memory);
  if (chars === undefined) {
    const metadata = Object.keys(memory.metadata).length > 0 ? JSON.stringify(memory.metadata).length : 0;
    chars = memory.text.length + metadata;
    measured.set(memory, chars);
  }
  return chars;
}

/** A hit's size in a page bounded by text (`maxTextChars`): its memory's text and metadata. */
export const hitTextChars = (hit: SearchHit): number => recordChars(hit.memory);

/** The order of search results: score, then id. */
export const byScore = (a: SearchHit, b: SearchHit): number =>
  b.score - a.score || (a.memory.id < b.memory.id ? -1 : 1);

/**
 * Whether the hits scored above `top` (which no unread member can reach, so they are the best in
 * their final order) already end the page: past `offset`, their text passes `maxChars`.
 */
function pageFilled(scored: readonly SearchHit[], top: number, page: { offset: number; maxChars: number }) {
  const settled = scored.filter((hit) => hit.score > top).sort(byScore);
  const from = settled.slice(page.offset);
  return takeWithinChars(from, hitTextChars, page.maxChars).length < from.length;
}

/** How many records likely fill `maxChars` of text, judged by those read so far (one when none). */
function textStep(read: readonly Candidate[], maxChars: number): number {
  if (read.length === 0) return 1;
  const average = read.reduce((sum, { memory }) => sum + recordChars(memory), 0) / read.length;
  return Math.ceil(maxChars / Math.max(1, average)) + 1;
}

/** The `n`-th highest score (n ≥ 1, at most the list's length). */
function nthBest(hits: readonly SearchHit[], n: number): number {
  return (
    hits
      .map((hit) => hit.score)
      .sort((a, b) => b - a)
      .at(n - 1) ?? Number.NEGATIVE_INFINITY
  );
}

/**
 * Whether the memory's date (its event date, else its creation) lies in one of the spans, or a
 * relative date its text names ("yesterday", "last week"), read from that date, overlaps one.
 */
function matchesDates(memory: MemoryRecord, spans: readonly DateSpan[]): boolean {
  if (spans.length === 0) return false;
  const time = Date.parse(memory.eventDate ?? memory.createdAt);
  if (spans.some((span) => time >= span.start && time < span.end)) return true;
  const mentioned = resolveRelativeDates(memory.text, time);
  return mentioned.some((named) => spans.some((span) => named.start < span.end && named.end > span.start));
}

function recencyFactor(
  memory: MemoryRecord,
  recency: { weight: number; halfLifeDays: number; field: 'createdAt' | 'lastAccessed' | 'eventDate' },
  now: Date,
): number {
  const stamp = memory[recency.field] ?? memory.createdAt;
  const ageDays = Math.max(0, (now.getTime() - Date.parse(stamp)) / DAY_MS);
  return 1 + recency.weight * 0.5 ** (ageDays / recency.halfLifeDays);
}
