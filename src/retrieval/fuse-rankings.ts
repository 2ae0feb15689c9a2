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
  const fused = new Map<string, FusedHit>();
  lists.forEach((list, listIndex) => {
    const weight = weights?.[listIndex] ?? 1;
    list.forEach((entry, position) => {
      let hit = fused.get(entry.id);
      if (!hit) {
        hit = { id: entry.id, score: 0, ranks: lists.map(() => null) };
        fused.set(entry.id, hit);
      }
      if (hit.ranks[listIndex] !== null) return;
      hit.ranks[listIndex] = position + 1;
      hit.score += weight / (k + position + 1);
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
