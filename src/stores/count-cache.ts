import type { MemoryFilter } from '../core/schemas/memory-record.js';

/** Filters remembered at most; past it the cache starts over (filters are few in practice). */
const CAPACITY = 256;

/**
 * Record counts by filter, for a driver to keep while nothing it counts changes: the driver clears
 * it on every write that adds, removes or changes records, and `clearAccessDependent` when only
 * access times moved (which only filters on `lastAccessed` read). Counts stay exact.
 */
export class CountCache {
  private readonly counts = new Map<string, number>();
  private readonly accessCounts = new Map<string, number>();

  /** The cached count of `filter` in the tenant, else `count()` (then remembered). */
  get(tenantId: string, filter: MemoryFilter, count: () => number): number {
    const key = JSON.stringify([tenantId, filter]);
    const map = filter.lastAccessed === undefined ? this.counts : this.accessCounts;
    const cached = map.get(key);
    if (cached !== undefined) return cached;
    const value = count();
    if (map.size >= CAPACITY) map.clear();
    map.set(key, value);
    return value;
  }

  clear(): void {
    this.counts.clear();
    this.accessCounts.clear();
  }

  clearAccessDependent(): void {
    this.accessCounts.clear();
  }
}
