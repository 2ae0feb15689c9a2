import type { TraceScoreComponents } from '../core/assembly/context-trace.js';
import type { SearchHit } from './hybrid-search.js';

/**
 * The ranking signals of one hybrid search hit as trace score components: the BM25 text score and
 * vector similarity (1 − cosine distance) when that ranking saw the hit, the boosts and factors,
 * and the resulting relevance. Signals that did not apply are left out, so the inspector shows
 * only what placed the hit.
 */
export function searchHitComponents(hit: SearchHit): TraceScoreComponents {
  const components: TraceScoreComponents = {};
  if (hit.textScore !== null) components.text_score = hit.textScore;
  if (hit.distance !== null) components.vector_similarity = 1 - hit.distance;
  if (hit.dateScore !== 0) components.date_score = hit.dateScore;
  if (hit.entityScore !== 0) components.entity_score = hit.entityScore;
  if (hit.contextScore !== 0) components.context_score = hit.contextScore;
  if (hit.questionFactor !== 1) components.question_factor = hit.questionFactor;
  if (hit.entityFactor !== 1) components.entity_factor = hit.entityFactor;
  if (hit.whenFactor !== 1) components.when_factor = hit.whenFactor;
  if (hit.recencyFactor !== 1) components.recency_factor = hit.recencyFactor;
  components.relevance = hit.relevance;
  return components;
}
