/** The search modes of the AMS API (REST, MCP and the memory prompt). */
export type AmsSearchMode = 'semantic' | 'keyword' | 'hybrid';

/** Prefix of the offline static word-vector model's id (`static-embedding-provider.ts`). */
const STATIC_MODEL_PREFIX = 'static:';

/**
 * The engine mode an AMS search mode runs as (docs/long-term-memory.md, "Search modes"):
 * - no mode, and `hybrid`: engram's hybrid pipeline, the best ranking it has (BM25 + vectors,
 *   dates, entities, neighbouring turns), as the library runs it;
 * - `keyword`: BM25 alone;
 * - `semantic`: vector-only where a real embedding model is configured, or where a
 *   `distance_threshold` asks for cosine distances; over the offline static word vectors it runs
 *   the hybrid pipeline, because those vectors alone rank worse than BM25 (LoCoMo turn R@10 45.6 %
 *   against 57.0 %) and clients send `semantic` as AMS's default, not as a choice.
 */
export function resolveSearchMode(
  mode: AmsSearchMode | undefined,
  embeddingModel: string,
  thresholded: boolean,
): 'hybrid' | 'text' | 'vector' {
  if (mode === 'keyword') return 'text';
  if (mode === 'hybrid') return 'hybrid';
  if (thresholded) return 'vector';
  if (mode === 'semantic' && !embeddingModel.startsWith(STATIC_MODEL_PREFIX)) return 'vector';
  return 'hybrid';
}

/** The AMS mode that names what the engine ran (the `score_type` of the results). */
export const amsModeOf = { hybrid: 'hybrid', text: 'keyword', vector: 'semantic' } as const satisfies Record<
  'hybrid' | 'text' | 'vector',
  AmsSearchMode
>;

/**
 * What a single ranking (`keyword`: BM25, `semantic`: vectors) runs without: the date, entity
 * and question adjustments and the neighbouring turns, which would rank in records that ranking
 * never found (a keyword search returning memories without the word). Empty for the hybrid.
 */
export function singleRankingOverrides(mode: 'hybrid' | 'text' | 'vector') {
  return mode === 'hybrid'
    ? {}
    : { dateBoost: 0, entityBoost: 0, entityWeight: 1, whenWeight: 1, neighbors: { window: 0 } };
}
