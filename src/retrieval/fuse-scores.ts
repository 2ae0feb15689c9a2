import type { FusedHit, RankedId } from './fuse-rankings.js';

/** How one ranking's scores are brought to [0, 1] before they are weighted and summed. */
export type ScoreScale =
  /** score / best score: keeps the ratios (BM25, whose zero means "no match"). */
  | 'max'
  /** (score − worst) / (best − worst) over the list: for similarities with no meaningful zero. */
  | 'range';

/**
 * Weighted sum of normalized scores (convex combination fusion). Unlike reciprocal rank fusion it
 * keeps how far ahead a hit is: a BM25 hit matching the query's rare words twice as strongly as the
 * next one stays well ahead, where RRF would give ranks 1 and 2 nearly equal credit. Each list must
 * be sorted best first with higher-is-better scores; an id missing from a list gets 0 from it.
 * Ties break by id, so the order is deterministic.
 */
export function fuseScores(
  lists: readonly (readonly RankedId[])[],
  weights: readonly number[],
  scales: readonly ScoreScale[],
): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  lists.forEach((list, listIndex) => {
    const weight = weights[listIndex] ?? 1;
    const best = list[0]?.score ?? 0;
    const worst = scales[listIndex] === 'range' ? (list[list.length - 1]?.score ?? 0) : 0;
    const span = best - worst;
    list.forEach((entry, position) => {
      let hit = fused.get(entry.id);
      if (!hit) {
        hit = { id: entry.id, score: 0, ranks: lists.map(() => null) };
        fused.set(entry.id, hit);
      }
      if (hit.ranks[listIndex] !== null) return;
      hit.ranks[listIndex] = position + 1;
      // A one-entry list (or all-equal scores) puts every entry at the top.
      const normalized = span > 0 ? Math.max(0, (entry.score - worst) / span) : 1;
      hit.score += weight * normalized;
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
