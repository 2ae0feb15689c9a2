import type { MemoryFilterInput, MemoryRecord } from '../../core/schemas/memory-record.js';
import type { Engram } from '../../engram.js';
import { MAX_SEARCH_POOL, type SearchRequest } from '../../retrieval/hybrid-search.js';
import {
  type AmsSearchMode,
  amsModeOf,
  resolveSearchMode,
  singleRankingOverrides,
} from '../../retrieval/resolve-search-mode.js';
import { matchesMemoryFilter } from '../../stores/memory-filter.js';
import { toMemoryFilter, toTagFilter } from './ams-filters.js';
import { AmsHttpError } from './ams-http-error.js';
import { amsExtrasOf } from './long-term-memory-mapper.js';
import type { AmsSearchBody } from './long-term-memory-schemas.js';

/** AMS bumps a hit's access time at most this often (§5.4). */
const ACCESS_BUMP_INTERVAL_MS = 15 * 60_000;

/** How an AMS search runs in engram: the engine request, and what the response needs to know. */
export interface PlannedSearch {
  request: SearchRequest;
  /** The mode that ran, as AMS names it (the results' `score_type`). */
  mode: AmsSearchMode;
  /** Empty text: a filter-only listing (dist 0, no score). */
  listing: boolean;
  /** Whether hits get their access time bumped (re-ranked searches, as in AMS). */
  bumpsAccess: boolean;
}

/**
 * `extraction_strategy` lives in the metadata extras, which no store filter reads: the records
 * matching the other filters (at most 10,000) are checked in memory and the search is narrowed to
 * their ids. A broader scope is a 400 rather than a silently partial answer.
 */
async function withStrategyFilter(
  engram: Engram,
  tenantId: string,
  filter: MemoryFilterInput,
  body: AmsSearchBody,
): Promise<MemoryFilterInput> {
  const strategy = toTagFilter(body.extraction_strategy);
  if (!strategy) return filter;
  const { memories, total } = await engram.memories.list(tenantId, filter, { limit: 1_000, offset: 0 });
  const scope = [...memories];
  for (let offset = 1_000; offset < total && offset < MAX_SEARCH_POOL; offset += 1_000) {
    scope.push(...(await engram.memories.list(tenantId, filter, { limit: 1_000, offset })).memories);
  }
  if (total > MAX_SEARCH_POOL) {
    throw new AmsHttpError(
      400,
      `extraction_strategy filters need a scope of at most ${MAX_SEARCH_POOL} memories; narrow it with namespace or user_id`,
    );
  }
  // The tag rules are the store's: ask them of the strategy placed in a field they read.
  const matches = (memory: MemoryRecord) =>
    matchesMemoryFilter(
      { ...memory, agentId: amsExtrasOf(memory).extraction_strategy },
      { agentId: strategy },
    );
  return { ...filter, ids: scope.filter(matches).map((memory) => memory.id) };
}

/**
 * Plans an AMS search (§4.8, §5). The mode runs as `resolveSearchMode` says: no mode, `hybrid`,
 * and `semantic` over the offline static vectors get engram's hybrid pipeline exactly as the
 * library runs it (its weights unless `hybrid_alpha` is given, dates, entities, neighbours);
 * `keyword` is BM25; vector-only `semantic` ranks by cosine distance alone (no date, entity or
 * neighbour boosts). AMS's recency re-rank ranks the whole candidate pool before paging; it runs
 * when `recency_boost` is true, and by default (as in AMS) except on the hybrid pipeline, whose
 * ranking it would only blur (docs/long-term-memory.md, "Search modes"). Hits get their access
 * time bumped unless `recency_boost` is false. Filters are never relaxed. engram's `sort` extension
 * orders by creation time after all that, over the whole pool, before paging.
 */
export async function planSearch(
  engram: Engram,
  tenantId: string,
  body: AmsSearchBody,
): Promise<PlannedSearch> {
  const requested = body.search_mode;
  if (body.distance_threshold != null && requested !== undefined && requested !== 'semantic') {
    throw new AmsHttpError(400, 'distance_threshold is only supported for semantic search mode');
  }
  const text = body.text?.trim() ?? '';
  const mode = resolveSearchMode(requested, engram.memories.embeddingModel, body.distance_threshold != null);
  const rerank = body.recency_boost === true || (body.recency_boost == null && mode !== 'hybrid');
  const filter = await withStrategyFilter(engram, tenantId, toMemoryFilter(body), body);
  const weight = (value: number | null | undefined, fallback: number) => value ?? fallback;
  const alpha = body.hybrid_alpha;
  const request: SearchRequest = {
    text,
    filter,
    limit: body.limit,
    offset: body.offset,
    mode,
    ...(mode === 'hybrid' && alpha !== undefined ? { weights: { text: 1 - alpha, vector: alpha } } : {}),
    ...singleRankingOverrides(mode),
    ...(body.sort === 'created_desc' || body.sort === 'created_asc' ? { order: body.sort } : {}),
    ...(mode === 'vector' && body.distance_threshold != null && text !== ''
      ? { distanceThreshold: Math.min(2, Math.max(0, body.distance_threshold)) }
      : {}),
    ...(rerank
      ? {
          recencyBlend: {
            relevanceWeight: weight(body.recency_semantic_weight, 0.8),
            recencyWeight: weight(body.recency_recency_weight, 0.2),
            freshnessWeight: weight(body.recency_freshness_weight, 0.6),
            noveltyWeight: weight(body.recency_novelty_weight, 0.4),
            halfLifeLastAccessDays: weight(body.recency_half_life_last_access_days, 7),
            halfLifeCreatedDays: weight(body.recency_half_life_created_days, 30),
          },
        }
      : {}),
  };
  return { request, mode: amsModeOf[mode], listing: text === '', bumpsAccess: body.recency_boost !== false };
}

/** Bumps access count and time of the hits not bumped in the last 15 minutes (AMS's rate limit). */
export async function touchHits(
  engram: Engram,
  tenantId: string,
  memories: MemoryRecord[],
  now: Date,
): Promise<void> {
  const stale = memories.filter(
    (memory) => now.getTime() - Date.parse(memory.lastAccessed) >= ACCESS_BUMP_INTERVAL_MS,
  );
  if (stale.length === 0) return;
  await engram.store.memories.recordAccess(
    tenantId,
    stale.map((memory) => memory.id),
    now.toISOString(),
  );
}
