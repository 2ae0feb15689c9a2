import type { MemoryRecord } from '../core/schemas/memory-record.js';
import type { MemoryRecordStore } from '../stores/memory-record-store.js';
import type { ParsedSearch, SearchHit, SearchResult } from './hybrid-search.js';
import { blendedScore } from './recency-blend.js';

/** A record listed without a query: no ranking signal applies. */
export function plainHit(memory: MemoryRecord): SearchHit {
  return {
    memory,
    score: 0,
    relevance: 0,
    textRank: null,
    textScore: null,
    vectorRank: null,
    distance: null,
    dateScore: 0,
    entityScore: 0,
    contextScore: 0,
    questionFactor: 1,
    entityFactor: 1,
    whenFactor: 1,
    recencyFactor: 1,
    similarity: null,
  };
}

/**
 * A filter-only search (empty text). With a recency blend, the newest records by creation and by
 * last access form the pool, ranked by the blend (similarity 1 for all), then paged; otherwise the
 * store pages in the requested order (`created_asc` for `order: 'created_asc'`, else newest first):
 * exact over every matching record.
 */
export async function listFiltered(
  store: MemoryRecordStore,
  tenantId: string,
  request: ParsedSearch,
  now: Date,
  /** How many of the newest records a recency re-rank reads (the search's candidate pool). */
  pool: number,
): Promise<SearchResult> {
  const blend = request.recencyBlend;
  if (!blend) {
    const { memories, total } = await store.listMemories(tenantId, request.filter, {
      limit: request.limit,
      offset: request.offset,
      order: request.order === 'created_asc' ? 'created_asc' : 'created_desc',
    });
    return { hits: memories.map((memory) => plainHit(memory)), total };
  }
  const [byCreation, byAccess] = await Promise.all([
    store.listMemories(tenantId, request.filter, { limit: pool, offset: 0, order: 'created_desc' }),
    store.listMemories(tenantId, request.filter, { limit: pool, offset: 0, order: 'last_accessed_desc' }),
  ]);
  const candidates = new Map<string, MemoryRecord>();
  for (const memory of [...byCreation.memories, ...byAccess.memories]) candidates.set(memory.id, memory);
  const ranked = [...candidates.values()]
    .map((memory) => ({ memory, blended: blendedScore(1, memory, blend, now) }))
    .sort((a, b) => b.blended - a.blended || (a.memory.id < b.memory.id ? -1 : 1));
  return {
    hits: ranked.slice(request.offset, request.offset + request.limit).map(({ memory }) => plainHit(memory)),
    total: byCreation.total,
  };
}
