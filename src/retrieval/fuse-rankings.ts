import { fuseLists } from './fuse-lists.js';

/** One ranked list's entry. */
export interface RankedId {
  id: string;
  score: number;
}

export interface FusedHit {
  id: string;
  /** Fused score, higher is better. */
  score: number;
  /** 1-based rank in each input list, or null where absent. */
  ranks: (number | null)[];
}

/**
 * Reciprocal rank fusion (Cormack et al., 2009): score = Σ weight_i / (k + rank_i). It needs no
 * score calibration between BM25 and cosine similarity, which live on unrelated scales; `k` = 60
 * is the paper's value and damps the influence of the very top ranks.
 */
export function fuseRankings(
  lists: readonly (readonly RankedId[])[],
  weights?: readonly number[],
  k = 60,
): FusedHit[] {
  return fuseLists(lists, (listIndex, _entry, position) => (weights?.[listIndex] ?? 1) / (k + position + 1));
}
