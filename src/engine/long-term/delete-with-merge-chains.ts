import type { MemoryRecordStore } from '../../stores/memory-record-store.js';

/**
 * Deletes the memories `named`, each with every memory linked to it by merges (what it was merged
 * from and into, followed both ways one read per step, up to `maxLinked` ids): a deleted memory's
 * old text must not linger under the id it had before a merge. Resolves how many of `named`
 * existed, the ids of one chain counting once.
 */
export async function deleteWithMergeChains(
  store: MemoryRecordStore,
  tenantId: string,
  named: readonly string[],
  maxLinked: number,
): Promise<number> {
  // `chainOf` joins the ids of one chain, so a memory named by two of its ids counts once.
  const link = new Map<string, string>(named.map((id) => [id, id]));
  const chainOf = (id: string): string => {
    const next = link.get(id) ?? id;
    return next === id ? id : chainOf(next);
  };
  const found = new Set<string>();
  let frontier = [...new Set(named)];
  while (frontier.length > 0 && link.size < maxLinked) {
    const next: string[] = [];
    for (const memory of await store.getMemories(tenantId, frontier)) {
      found.add(memory.id);
      for (const linked of [memory.supersedes, memory.supersededBy]) {
        if (linked === null) continue;
        if (!link.has(linked)) {
          link.set(linked, linked);
          next.push(linked);
        }
        link.set(chainOf(linked), chainOf(memory.id));
      }
    }
    frontier = next;
  }
  await store.deleteMemories(tenantId, [...link.keys()]);
  return new Set(named.filter((id) => found.has(id)).map(chainOf)).size;
}
