import {
  rankWorkingSet,
  type WorkingSet,
  type WorkingSetOptions,
} from '../../core/ranking/rank-working-set.js';
import {
  type MemoryFilterInput,
  type MemoryRecord,
  memoryFilterSchema,
} from '../../core/schemas/memory-record.js';
import type { EmbeddingProvider } from '../../providers/embeddings/embedding-provider.js';
import { hybridSearch } from '../../retrieval/hybrid-search.js';
import { compileMemoryFilter } from '../../stores/memory-filter.js';
import type { MemoryRecordStore } from '../../stores/memory-record-store.js';

export interface WorkingSetRequest {
  query: string;
  /** The subject: whose memories (user + namespace). */
  userId: string;
  namespace?: string | null;
  /** Further conditions on the candidates (e.g. memory types). */
  filter?: MemoryFilterInput;
  /** How many search hits are considered before ranking. */
  candidates?: number;
  pins?: ReadonlySet<string>;
  removals?: ReadonlySet<string>;
  options?: WorkingSetOptions;
  /** Count the returned memories as accessed (resets their salience decay). Default true. */
  recordAccess?: boolean;
}

/**
 * The subject's working set for `request.query`: hybrid search over their memories (no total
 * counted: only the hits are used), pins added even when the query did not find them, then ranked
 * by similarity, salience and confidence (`rankWorkingSet`). Returns the set with its memories.
 */
export async function searchWorkingSet(
  store: MemoryRecordStore,
  embedder: EmbeddingProvider,
  tenantId: string,
  request: WorkingSetRequest,
  now: Date,
): Promise<WorkingSet & { memories: MemoryRecord[] }> {
  const filter: MemoryFilterInput = {
    ...request.filter,
    userId: { eq: request.userId },
    ...(request.namespace != null ? { namespace: { eq: request.namespace } } : {}),
  };
  const { hits } = await hybridSearch(
    store,
    embedder,
    tenantId,
    { text: request.query, limit: request.candidates ?? 50, filter },
    now,
    { countTotal: false },
  );
  const found = new Set(hits.map((hit) => hit.memory.id));
  const missingPins = [...(request.pins ?? [])].filter((id) => !found.has(id));
  // A pin names a memory by id, so it passes the same filter as the search: another user's (or
  // namespace's, or type's) memory never enters this subject's working set through a pin.
  const pinned: MemoryRecord[] = [];
  if (missingPins.length > 0) {
    const allowed = compileMemoryFilter(memoryFilterSchema.parse(filter));
    for (const memory of await store.getMemories(tenantId, missingPins))
      if (allowed(memory)) pinned.push(memory);
  }
  const candidates = [
    // Hybrid relevance (BM25 and vectors fused), not the vector distance alone.
    ...hits.map((hit) => ({ memory: hit.memory, similarity: hit.relevance })),
    ...pinned.map((memory) => ({ memory, similarity: 0 })),
  ];
  const set = rankWorkingSet(
    candidates.map(({ memory, similarity }) => ({ ...memory, similarity })),
    {
      ...request.options,
      now,
      ...(request.pins ? { pins: request.pins } : {}),
      ...(request.removals ? { removals: request.removals } : {}),
    },
  );
  const byId = new Map(candidates.map(({ memory }) => [memory.id, memory]));
  return { ...set, memories: set.items.flatMap((item) => byId.get(item.id) ?? []) };
}
