import type { FusedHit, RankedId } from './fuse-rankings.js';

/**
 * The shared skeleton of rank and score fusion: every id of every list gets one fused hit, the
 * 1-based rank it holds in each list (a repeat within a list counts once), and the sum of
 * `credit(listIndex, entry, position)` over the lists it appears in. Best first, ties by id.
 */
export function fuseLists(
  lists: readonly (readonly RankedId[])[],
  credit: (listIndex: number, entry: RankedId, position: number) => number,
): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  lists.forEach((list, listIndex) => {
    list.forEach((entry, position) => {
      let hit = fused.get(entry.id);
      if (!hit) {
        hit = { id: entry.id, score: 0, ranks: lists.map(() => null) };
        fused.set(entry.id, hit);
      }
      if (hit.ranks[listIndex] !== null) return;
      hit.ranks[listIndex] = position + 1;
      hit.score += credit(listIndex, entry, position);
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
