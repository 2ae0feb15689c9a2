import { z } from 'zod';
import { ValidationError } from '../core/errors.js';
import { type MemoryRecord, memoryFilterSchema } from '../core/schemas/memory-record.js';
import type { EmbeddingProvider } from '../providers/embeddings/embedding-provider.js';
import type { MemoryRecordStore } from '../stores/memory-record-store.js';
import { fuseRankings } from './fuse-rankings.js';

/** Largest candidate pool per ranking; also the cap on `total` for text or thresholded searches. */
export const MAX_SEARCH_POOL = 10_000;

export const searchRequestSchema = z.object({
  /** The query; empty means "filters only", newest first. */
  text: z.string().max(10_000).default(''),
  filter: memoryFilterSchema.default({ includeSuperseded: false }),
  limit: z.number().int().min(1).max(1_000).default(10),
  offset: z.number().int().min(0).max(MAX_SEARCH_POOL).default(0),
  mode: z.enum(['hybrid', 'text', 'vector']).default('hybrid'),
  /** Cosine distance above which vector matches are dropped (0 = identical, 2 = opposite). */
  distanceThreshold: z.number().min(0).max(2).optional(),
  /** Weights of the two rankings in reciprocal rank fusion. */
  weights: z
    .object({ text: z.number().nonnegative().default(1), vector: z.number().nonnegative().default(1) })
    .default({ text: 1, vector: 1 }),
  /** Boosts recent memories: score × (1 + weight × 0.5^(age / halfLife)). Off by default. */
  recency: z
    .object({
      weight: z.number().min(0).max(10).default(0),
      halfLifeDays: z.number().positive().max(36_500).default(30),
      field: z.enum(['createdAt', 'lastAccessed', 'eventDate']).default('createdAt'),
    })
    .default({ weight: 0, halfLifeDays: 30, field: 'createdAt' }),
});
export type SearchRequest = z.input<typeof searchRequestSchema>;

/** One search hit with every ranking signal that placed it. */
export interface SearchHit {
  memory: MemoryRecord;
  /** Final score, higher is better (fused rank score with the recency factor applied). */
  score: number;
  /** `score` scaled to [0, 1]: 1 = ranked first by every ranking that ran. */
  relevance: number;
  textRank: number | null;
  textScore: number | null;
  vectorRank: number | null;
  /** Cosine distance to the query, when the vector ranking saw the record. */
  distance: number | null;
  recencyFactor: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Every record that matches (filters, and the query where it restricts), not just this page. */
  total: number;
}

const DAY_MS = 86_400_000;

/**
 * Hybrid search: BM25 and vector KNN over the same filtered records, fused by reciprocal rank,
 * optionally boosted by recency, ranked first and paged after (so pages are consistent).
 */
export async function hybridSearch(
  store: MemoryRecordStore,
  embedder: EmbeddingProvider,
  tenantId: string,
  input: SearchRequest,
  now: Date,
): Promise<SearchResult> {
  const parsed = searchRequestSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError(`Invalid search: ${parsed.error.issues[0]?.message}`);
  const request = parsed.data;
  const query = request.text.trim();
  if (query === '') {
    const { memories, total } = await store.listMemories(tenantId, request.filter, {
      limit: request.limit,
      offset: request.offset,
    });
    return { hits: memories.map((memory) => plainHit(memory)), total };
  }

  const pool = Math.min(MAX_SEARCH_POOL, Math.max(100, (request.offset + request.limit) * 4));
  const thresholded = request.distanceThreshold !== undefined;
  const [textHits, vectorHits] = await Promise.all([
    request.mode === 'vector'
      ? []
      : store.searchText(
          tenantId,
          query,
          request.filter,
          thresholded || request.mode === 'text' ? MAX_SEARCH_POOL : pool,
        ),
    request.mode === 'text'
      ? []
      : embedder
          .embed([query])
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

  const fused = fuseRankings(
    [textHits, vectorMatches.map((hit) => ({ id: hit.id, score: -hit.distance }))],
    [request.weights.text, request.weights.vector],
  );
  const total = await countMatches(
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
  // The best possible fused score: first place in every ranking that ran.
  const rankingsRun =
    (request.mode === 'vector' ? 0 : request.weights.text) +
    (request.mode === 'text' ? 0 : request.weights.vector);
  const maxScore = rankingsRun / 61 || 1;
  let ranked = fused;
  const recency = request.recency;
  const records = new Map<string, MemoryRecord>();
  if (recency.weight > 0) {
    // Recency changes the order, so it must see the whole pool before paging.
    for (const memory of await store.getMemories(
      tenantId,
      fused.map((hit) => hit.id),
    ))
      records.set(memory.id, memory);
  } else {
    ranked = fused.slice(request.offset, request.offset + request.limit);
    for (const memory of await store.getMemories(
      tenantId,
      ranked.map((hit) => hit.id),
    ))
      records.set(memory.id, memory);
  }
  const scored = ranked.flatMap((hit): SearchHit[] => {
    const memory = records.get(hit.id);
    if (!memory) return [];
    const factor = recency.weight > 0 ? recencyFactor(memory, recency, now) : 1;
    return [
      {
        memory,
        score: hit.score * factor,
        relevance: Math.min(1, hit.score / maxScore),
        textRank: hit.ranks[0] ?? null,
        textScore: textScores.get(hit.id) ?? null,
        vectorRank: hit.ranks[1] ?? null,
        distance: distances.get(hit.id) ?? null,
        recencyFactor: factor,
      },
    ];
  });
  if (recency.weight > 0) scored.sort((a, b) => b.score - a.score || (a.memory.id < b.memory.id ? -1 : 1));
  const hits = recency.weight > 0 ? scored.slice(request.offset, request.offset + request.limit) : scored;
  return { hits, total };
}

/**
 * Without a threshold every filtered record with an embedding is a vector match, so the total is
 * the filtered count; otherwise it is the size of the matched union (exact below MAX_SEARCH_POOL).
 */
async function countMatches(
  store: MemoryRecordStore,
  tenantId: string,
  request: z.output<typeof searchRequestSchema>,
  fusedCount: number,
  textCount: number,
  vectorCount: number,
  pool: number,
): Promise<number> {
  const unbounded = request.distanceThreshold === undefined;
  if (request.mode !== 'text' && unbounded && (vectorCount >= pool || textCount >= pool)) {
    return (await store.listMemories(tenantId, request.filter, { limit: 1, offset: 0 })).total;
  }
  return fusedCount;
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

function plainHit(memory: MemoryRecord): SearchHit {
  return {
    memory,
    score: 0,
    relevance: 0,
    textRank: null,
    textScore: null,
    vectorRank: null,
    distance: null,
    recencyFactor: 1,
  };
}
