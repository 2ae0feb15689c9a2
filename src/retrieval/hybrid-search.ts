import { z } from 'zod';
import { validationErrorFromZod } from '../core/errors.js';
import { type MemoryRecord, memoryFilterSchema } from '../core/schemas/memory-record.js';
import { MAX_MESSAGE_CHARS } from '../core/schemas/message.js';
import { takeWithinChars } from '../core/take-within-chars.js';
import type { EmbeddingProvider } from '../providers/embeddings/embedding-provider.js';
import type { HitTraits, MemoryRecordStore, TextHit, VectorHit } from '../stores/memory-record-store.js';
import { asksWhen } from './asks-when.js';
import { extractQueryDates } from './extract-query-dates.js';
import { fuseRankings } from './fuse-rankings.js';
import { fuseScores } from './fuse-scores.js';
import { listFiltered } from './list-filtered.js';
import { byScore, hitTextChars, rankPool } from './rank-pool.js';
import { blendedScore, recencyBlendSchema } from './recency-blend.js';
import { searchQueryOf } from './search-query-of.js';

/** Largest candidate pool per ranking; also the cap on `total` for text or thresholded searches. */
export const MAX_SEARCH_POOL = 10_000;
/**
 * Smallest candidate pool per ranking (else 4 × offset + limit): dates, entities and neighbour
 * context rerank the pool, so a deeper one gives them more matches to lift (see
 * docs/long-term-memory.md, "Retrieval quality on LoCoMo").
 */
export const MIN_SEARCH_POOL = 200;

export const searchRequestSchema = z.object({
  /**
   * The query; empty means "filters only", newest first. Past MAX_QUERY_CHARS (10,000) it is
   * searched by its first and last ~5,000 characters (`searchQueryOf`), never refused.
   */
  text: z.string().max(MAX_MESSAGE_CHARS).default(''),
  filter: memoryFilterSchema.default({ includeSuperseded: false }),
  limit: z.number().int().min(1).max(1_000).default(10),
  offset: z.number().int().min(0).max(MAX_SEARCH_POOL).default(0),
  mode: z.enum(['hybrid', 'text', 'vector']).default('hybrid'),
  /**
   * How the text and vector rankings combine: `score`, a weighted sum of normalized scores (BM25 ÷
   * best BM25, similarity scaled over the vector candidates), or `rrf`, reciprocal rank fusion.
   */
  fusion: z.enum(['score', 'rrf']).default('score'),
  /** Cosine distance above which vector matches are dropped (0 = identical, 2 = opposite). */
  distanceThreshold: z.number().min(0).max(2).optional(),
  /** Weights of the two rankings; defaults: text 1, vector 0.25 (`score`) or 1 (`rrf`). */
  weights: z
    .object({ text: z.number().nonnegative().optional(), vector: z.number().nonnegative().optional() })
    .default({}),
  /**
   * Conversational context: the `sources` best candidates lend `weight` of their score to the
   * turns up to `window` places before and after them in the same session (halving per step; a
   * turn that asks a question lends `replyWeight` times that to the turns after it). Neighbours
   * that no ranking found join the results. `window: 0` turns it off.
   */
  neighbors: z
    .object({
      window: z.number().int().min(0).max(10).default(2),
      weight: z.number().min(0).max(1).default(0.5),
      sources: z.number().int().min(1).max(100).default(3),
      replyWeight: z.number().min(0).max(4).default(1.25),
    })
    .default({ window: 2, weight: 0.5, sources: 3, replyWeight: 1.25 }),
  /**
   * Factor on the own score (fused + date + entity) of a conversation turn (a memory with a
   * `sessionId`) that asks a question: a question names a topic, its reply holds the facts. The
   * turn still lends context at its full score. 1 = off.
   */
  questionWeight: z.number().min(0).max(1).default(0.8),
  /**
   * Added to the fused score of memories whose `eventDate` (else `createdAt`) falls on a date the
   * query names ("on 3 May, 2023", "in July 2023"); those phrases are then left out of the matching
   * text. 0 turns date recognition off.
   */
  dateBoost: z.number().min(0).max(10).default(0.5),
  /** Added to the fused score of memories with an `entities` entry that the query names; 0 = off. */
  entityBoost: z.number().min(0).max(10).default(0.2),
  /**
   * Factor on the whole score (own and context) of a memory whose entities the query does not
   * name, when it names an entity of another candidate: a question about Ada is answered by Ada's
   * memories, not by the turns next to them. Memories without entities keep 1. 1 = off.
   */
  entityWeight: z.number().min(0).max(1).default(0.6),
  /**
   * Factor on the whole score of a memory whose text states a date (a calendar date, or a
   * relative one such as "yesterday" or "last week") when the query asks when ("When did …",
   * "How long ago …", "What year …"): such a question is answered by a memory that says when.
   * 1 = off.
   */
  whenWeight: z.number().min(1).max(4).default(1.5),
  /** Boosts recent memories: score × (1 + weight × 0.5^(age / halfLife)). Off by default. */
  recency: z
    .object({
      weight: z.number().min(0).max(10).default(0),
      halfLifeDays: z.number().positive().max(36_500).default(30),
      field: z.enum(['createdAt', 'lastAccessed', 'eventDate']).default('createdAt'),
    })
    .default({ weight: 0, halfLifeDays: 30, field: 'createdAt' }),
  /**
   * AMS's recency re-rank (`recency-blend.ts`), over the whole candidate pool before paging: hits
   * are ordered by relevanceWeight × similarity + recencyWeight × recency, where similarity is
   * 1 − distance in `vector` mode, the hit's `similarity` otherwise, and 1 in a filter-only
   * listing (which then ranks the newest `max(200, 4 × (offset + limit))` records by created and
   * by last access, up to 10,000: exact whenever fewer records match). Ties keep the score order.
   */
  recencyBlend: recencyBlendSchema.optional(),
  /**
   * The order of the results: `relevance` (the ranking above), or by creation time, newest or
   * oldest first. A date order sorts the whole candidate pool before paging (ties keep the
   * relevance order); a filter-only listing pages every matching record in that order.
   */
  order: z.enum(['relevance', 'created_desc', 'created_asc']).default('relevance'),
  /**
   * Characters of text (and metadata, as JSON) in the page: past its first hit, the page ends
   * before the hit whose text would bring it past this (`takeWithinChars`, `hitTextChars`), and
   * `SearchResult.textCut` says so. A ranked
   * search then reads only the records that can reach that shorter page: an MCP page of 100
   * memories of 20,000 characters reads 31 records, not all 100. Unset: `limit` alone.
   */
  maxTextChars: z.number().int().min(1).optional(),
});
export type SearchRequest = z.input<typeof searchRequestSchema>;

/** One search hit with every ranking signal that placed it. */
export interface SearchHit {
  memory: MemoryRecord;
  /**
   * Final score, higher is better: ((fused + date + entity) × question factor + context) × the
   * entity factor × the when factor × the recency factor.
   */
  score: number;
  /** `score` scaled to [0, 1]: 1 = ranked first by every ranking that ran. */
  relevance: number;
  textRank: number | null;
  textScore: number | null;
  vectorRank: number | null;
  /** Cosine distance to the query, when the vector ranking saw the record. */
  distance: number | null;
  /** What the query's dates added (`dateBoost` when the memory's date matched, else 0). */
  dateScore: number;
  /** What naming one of its entities added (`entityBoost` when the query names one, else 0). */
  entityScore: number;
  /** What neighbouring turns of the same session lent it (see `neighbors`). */
  contextScore: number;
  /** `questionWeight` when it is a conversation turn that asks a question, else 1. */
  questionFactor: number;
  /** `entityWeight` when the query names another candidate's entity but none of this one's, else 1. */
  entityFactor: number;
  /** `whenWeight` when the query asks when and the memory states a date, else 1. */
  whenFactor: number;
  recencyFactor: number;
  /** `score` ÷ the best score among all candidates (the top hit = 1); null in a filter-only listing. */
  similarity: number | null;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Every record that matches (filters, and the query where it restricts), not just this page. */
  total: number;
  /** True when `maxTextChars` ended the page before `limit` hits: more follow at offset + hits. */
  textCut?: boolean;
}

export type ParsedSearch = z.output<typeof searchRequestSchema>;

export interface HybridSearchOptions {
  /**
   * Read every candidate's record, even where the store's hit traits let search read only those
   * that can reach the page (`rank-pool.ts`): the same results, for tests and benchmarks.
   */
  readWholePool?: boolean;
  /**
   * Count every match for `total` (default true). Callers that use only the hits (context
   * sources, the working set) pass false: a store count is then not made, and `total` is only the
   * number of candidates ranked (a lower bound).
   */
  countTotal?: boolean;
}

/**
 * Hybrid search: BM25 and vector KNN over the same filtered records, fused (normalized scores or
 * reciprocal rank), boosted for dates and entities the query names, given conversational context
 * from adjacent turns, optionally boosted by recency, ranked first and paged after (so pages are
 * consistent). See docs/long-term-memory.md, "Hybrid search".
 */
export async function hybridSearch(
  store: MemoryRecordStore,
  embedder: EmbeddingProvider,
  tenantId: string,
  input: SearchRequest,
  now: Date,
  options: HybridSearchOptions = {},
): Promise<SearchResult> {
  const parsed = searchRequestSchema.safeParse(input);
  if (!parsed.success) throw validationErrorFromZod('search', parsed.error);
  const request = parsed.data;
  const query = searchQueryOf(request.text.trim());
  const pool = Math.min(MAX_SEARCH_POOL, Math.max(MIN_SEARCH_POOL, (request.offset + request.limit) * 4));
  if (query === '') return cutToText(await listFiltered(store, tenantId, request, now, pool), request);
  const dates = request.dateBoost > 0 ? extractQueryDates(query) : { spans: [], text: query };
  const matchText = dates.text === '' ? query : dates.text;
  const weights = {
    text: request.weights.text ?? 1,
    vector: request.weights.vector ?? (request.fusion === 'score' ? 0.25 : 1),
  };

  const thresholded = request.distanceThreshold !== undefined;
  const [textHits, vectorHits] = await Promise.all([
    request.mode === 'vector'
      ? []
      : store.searchText(
          tenantId,
          matchText,
          request.filter,
          thresholded || request.mode === 'text' ? MAX_SEARCH_POOL : pool,
        ),
    request.mode === 'text'
      ? []
      : embedder
          .embed([matchText])
          .then(([vector]) =>
            store.searchVector(
              tenantId,
              vector as Float32Array,
              embedder.model,
              request.filter,
              thresholded ? MAX_SEARCH_POOL : pool,
            ),
          ),
  ]);
  const vectorMatches =
    request.distanceThreshold === undefined
      ? vectorHits
      : vectorHits.filter((hit) => hit.distance <= (request.distanceThreshold as number));

  const rankings = [textHits, vectorMatches.map((hit) => ({ id: hit.id, score: -hit.distance }))];
  const fused =
    request.fusion === 'rrf'
      ? fuseRankings(rankings, [weights.text, weights.vector])
      : fuseScores(rankings, [weights.text, weights.vector], ['max', 'range']);
  const total =
    options.countTotal === false
      ? fused.length
      : await countMatches(
          store,
          tenantId,
          request,
          fused.length,
          textHits.length,
          vectorMatches.length,
          pool,
        );

  const textScores = new Map(textHits.map((hit) => [hit.id, hit.score]));
  const distances = new Map(vectorMatches.map((hit) => [hit.id, hit.distance]));
  // The best possible fused score: first place in every ranking that ran (and a date match).
  const rankingsRun =
    (request.mode === 'vector' ? 0 : weights.text) + (request.mode === 'text' ? 0 : weights.vector);
  const maxScore =
    (request.fusion === 'rrf' ? rankingsRun / 61 : rankingsRun) +
      (dates.spans.length > 0 ? request.dateBoost : 0) || 1;
  const recency = request.recency;
  const neighbors = request.neighbors.window > 0 && request.neighbors.weight > 0;
  // Dates, entities, neighbours, the question, entity and when factors and recency reorder, so
  // they must see the whole pool before paging.
  const reorders =
    recency.weight > 0 ||
    dates.spans.length > 0 ||
    neighbors ||
    request.entityBoost > 0 ||
    request.questionWeight !== 1 ||
    request.entityWeight !== 1 ||
    (request.whenWeight !== 1 && asksWhen(query)) ||
    request.recencyBlend !== undefined ||
    request.order !== 'relevance';
  // A recency blend or a date order ranks the whole pool by what only its records tell.
  const wholePool =
    request.recencyBlend !== undefined || request.order !== 'relevance' || options.readWholePool;
  const { scored, added } = await rankPool({
    store,
    tenantId,
    request,
    query,
    spans: dates.spans,
    ranked: reorders ? fused : fused.slice(request.offset, request.offset + request.limit),
    textScores,
    distances,
    maxScore,
    now,
    traits: reorders && !wholePool ? poolTraits(textHits, vectorMatches) : null,
    need: request.offset + request.limit,
    ...(request.maxTextChars !== undefined
      ? { page: { offset: request.offset, maxChars: request.maxTextChars } }
      : {}),
  });
  // A total that counts the matched set grows by the neighbours that joined it; a filtered count
  // (every filtered record matches) already holds them.
  const reported = total === fused.length ? total + added : total;
  // Unless reordered, `fused` is sorted and `scored` is its page, so the pool's best is fused[0].
  const best = reorders ? Math.max(0, ...scored.map((hit) => hit.score)) : (fused[0]?.score ?? 0);
  for (const hit of scored) hit.similarity = best > 0 ? hit.score / best : 0;
  if (!reorders) return cutToText({ hits: scored, total }, request);
  scored.sort(byScore);
  const blend = request.recencyBlend;
  if (blend) {
    const similarityOf = (hit: SearchHit) =>
      request.mode === 'vector' ? 1 - (hit.distance ?? 1) : (hit.similarity ?? 0);
    const blended = new Map(
      scored.map((hit) => [hit, blendedScore(similarityOf(hit), hit.memory, blend, now)]),
    );
    // Array.prototype.sort is stable: ties keep the score order.
    scored.sort((a, b) => (blended.get(b) ?? 0) - (blended.get(a) ?? 0));
  }
  if (request.order !== 'relevance') {
    const sign = request.order === 'created_desc' ? -1 : 1;
    scored.sort((a, b) => sign * (Date.parse(a.memory.createdAt) - Date.parse(b.memory.createdAt)));
  }
  return cutToText(
    { hits: scored.slice(request.offset, request.offset + request.limit), total: reported },
    request,
  );
}

/** The result cut to the request's `maxTextChars` of text, when it sets it. */
function cutToText(result: SearchResult, request: ParsedSearch): SearchResult {
  if (request.maxTextChars === undefined) return result;
  const hits = takeWithinChars(result.hits, hitTextChars, request.maxTextChars);
  return hits.length < result.hits.length ? { ...result, hits, textCut: true } : result;
}

/**
 * Without a threshold every filtered record with an embedding is a vector match, so the total is
 * the filtered count; otherwise it is the size of the matched union (exact below MAX_SEARCH_POOL).
 */
async function countMatches(
  store: MemoryRecordStore,
  tenantId: string,
  request: ParsedSearch,
  fusedCount: number,
  textCount: number,
  vectorCount: number,
  pool: number,
): Promise<number> {
  const unbounded = request.distanceThreshold === undefined;
  if (request.mode !== 'text' && unbounded && (vectorCount >= pool || textCount >= pool)) {
    return await store.countMemories(tenantId, request.filter);
  }
  return fusedCount;
}

/** Every hit's traits by id, or null when a hit came without them (the store does not give them). */
function poolTraits(
  textHits: readonly TextHit[],
  vectorHits: readonly VectorHit[],
): Map<string, HitTraits> | null {
  const traits = new Map<string, HitTraits>();
  for (const hit of [...textHits, ...vectorHits]) {
    if (hit.traits === undefined) return null;
    traits.set(hit.id, hit.traits);
  }
  return traits;
}
