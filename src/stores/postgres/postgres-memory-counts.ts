import { LruMap } from '../../core/lru-map.js';
import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { memoryFilterSql, SqlParameters } from './memory-filter-sql.js';
import type { Queryable } from './postgres-database.js';

/** (tenant, filter) counts remembered at most; the least recently used go first. */
const CAPACITY = 1_024;

/** JSON with object keys sorted, so that equal filters built in another key order share a key. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.entries(item).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)),
        )
      : item,
  );
}

/**
 * `countMemories` with counts remembered per (tenant, filter) together with the tenant's memory
 * revision. Every call is one statement that reads the revision and counts only when it is not the
 * remembered one, in one snapshot: the count is exact whichever server wrote last, since every
 * write of records moves the revision in its own transaction. Filters on `lastAccessed` are never
 * remembered: `recordAccess` moves access times without moving the revision.
 */
export function createPostgresMemoryCounts(database: Queryable) {
  const counts = new LruMap<string, { revision: number; total: number }>(CAPACITY);

  return async (tenantId: string, filter: MemoryFilter): Promise<number> => {
    const key = filter.lastAccessed === undefined ? canonicalJson([tenantId, filter]) : null;
    const cached = key === null ? undefined : counts.get(key);
    const parameters = new SqlParameters();
    const known = parameters.add(cached?.revision ?? null, '::bigint');
    const tenant = parameters.add(tenantId);
    const where = memoryFilterSql(tenantId, filter, parameters);
    const [row] = await database.query<{ revision: number; total: number | null }>(
      `SELECT s.revision, CASE WHEN s.revision = ${known} THEN NULL
        ELSE (SELECT count(*) FROM memories m WHERE ${where}) END AS total
      FROM (SELECT coalesce((SELECT revision FROM memory_revisions WHERE tenant_id = ${tenant}), 0) AS revision) AS s`,
      parameters.values,
    );
    if (cached && row && row.total === null) return cached.total;
    const total = row?.total ?? 0;
    if (key !== null && row) counts.set(key, { revision: row.revision, total });
    return total;
  };
}
