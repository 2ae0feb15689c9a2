import { fuseLists } from './fuse-lists.js';
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
  const bounds = lists.map((list, listIndex) => {
    const best = list[0]?.score ?? 0;
    const worst = scales[listIndex] === 'range' ? (list[list.length - 1]?.score ?? 0) : 0;
    return { worst, span: best - worst };
  });
  return fuseLists(lists, (listIndex, entry) => {
    const { worst, span } = bounds[listIndex] ?? { worst: 0, span: 0 };
    // A one-entry list (or all-equal scores) puts every entry at the top.
    const normalized = span > 0 ? Math.max(0, (entry.score - worst) / span) : 1;
    return (weights[listIndex] ?? 1) * normalized;
  });
}
