import type { MemoryFilter, MemoryRecord, TagFilter } from '../core/schemas/memory-record.js';

/** The fields records are partitioned by: set once per record version, never changed in place. */
export type PartitionFields = Pick<MemoryRecord, 'userId' | 'agentId' | 'memoryType' | 'documentId'>;

/** The conditions of a filter that partitions can answer. */
export type PartitionFilter = Pick<MemoryFilter, 'userId' | 'agentId' | 'memoryType' | 'documentId'>;

/** A memory's partitions: its user, its agent, its memory type, and "has a document". */
export function partitionKeysOf(fields: PartitionFields): string[] {
  const keys = [`t:${fields.memoryType}`];
  if (fields.userId !== null) keys.push(`u:${fields.userId}`);
  if (fields.agentId !== null) keys.push(`a:${fields.agentId}`);
  if (fields.documentId !== null) keys.push('d');
  return keys;
}

/** The partitions a tag condition confines a field to (their union), or null when it does not. */
function confinedTo(prefix: string, condition: TagFilter | undefined): string[] | null {
  if (condition === undefined) return null;
  if (condition.eq !== undefined) return [`${prefix}:${condition.eq}`];
  if (condition.any !== undefined) return condition.any.map((value) => `${prefix}:${value}`);
  return null;
}

/**
 * Every way the filter confines its matches to a union of partitions: each entry is one union,
 * and every record the filter accepts lies in each of them. A search may scan the smallest one
 * (still testing the filter on each member) instead of the whole tenant. Empty: no confinement.
 */
export function filterPartitions(filter: PartitionFilter): string[][] {
  const unions = [
    confinedTo('u', filter.userId),
    confinedTo('a', filter.agentId),
    confinedTo('t', filter.memoryType),
    filter.documentId?.exists === true || filter.documentId?.eq !== undefined ? ['d'] : null,
  ];
  return unions.filter((union): union is string[] => union !== null);
}

/**
 * Members (a driver's row keys) by partition, so that a filter naming a user, an agent, a memory
 * type or documents is answered by scanning those rows only: the cost of a search follows what
 * the filter can match, not the tenant's size. Members must be removed with the fields they were
 * added with.
 */
export class FilterPartitions<Key> {
  private readonly members = new Map<string, Set<Key>>();

  add(key: Key, fields: PartitionFields): void {
    for (const partition of partitionKeysOf(fields)) {
      let set = this.members.get(partition);
      if (!set) {
        set = new Set();
        this.members.set(partition, set);
      }
      set.add(key);
    }
  }

  remove(key: Key, fields: PartitionFields): void {
    for (const partition of partitionKeysOf(fields)) {
      const set = this.members.get(partition);
      set?.delete(key);
      if (set?.size === 0) this.members.delete(partition);
    }
  }

  /**
   * The members of the smallest union of partitions the filter confines its matches to (a superset
   * of its matches, possibly with repeats when a union names a partition twice), or null when the
   * filter names none. `source` is the partition's set when it is one (it changes in place as
   * members come and go), for callers that cache what they derive from it.
   */
  narrowest(
    filter: PartitionFilter,
  ): { size: number; keys: () => Iterable<Key>; source: Set<Key> | undefined } | null {
    let best: Set<Key>[] | null = null;
    let bestSize = Number.POSITIVE_INFINITY;
    for (const union of filterPartitions(filter)) {
      const sets = [...new Set(union)].flatMap((partition) => this.members.get(partition) ?? []);
      const size = sets.reduce((sum, set) => sum + set.size, 0);
      if (size < bestSize) {
        best = sets;
        bestSize = size;
      }
    }
    if (best === null) return null;
    const chosen = best;
    // One partition (the usual case) is iterated as the set itself: a generator costs more per key.
    const only = chosen.length === 1 ? chosen[0] : undefined;
    return {
      size: bestSize,
      source: only,
      keys: only
        ? () => only.values()
        : function* keys() {
            for (const set of chosen) yield* set;
          },
    };
  }
}
