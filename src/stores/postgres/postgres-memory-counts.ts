import { LruMap } from '../../core/lru-map.js';
import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { memoryFilterSql, SqlParameters } from './memory-filter-sql.js';
import type { Queryable } from './postgres-database.js';

/** (tenant, filter) counts remembered at most per kind of count; the least recently used go first. */
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
 * Counts remembered per (tenant, filter, `detail`) together with the tenant's memory revision.
 * Every call is one statement that reads the revision and counts (`countSql`, over the memories
 * `m` that pass `where`) only when it is not the remembered one, in one snapshot: the count is
 * exact whichever server wrote last, since every write of records or vectors moves the revision in
 * its own transaction. Filters on `lastAccessed` are never remembered: `recordAccess` moves access
 * times without moving the revision.
 */
function createRevisionCounts(
  database: Queryable,
  countSql: (where: string, parameters: SqlParameters, detail: string) => string,
) {
  const counts = new LruMap<string, { revision: number; total: number }>(CAPACITY);

  return async (
    tenantId: string,
    filter: MemoryFilter,
    detail = '',
  ): Promise<{ total: number; revision: number }> => {
    const key = filter.lastAccessed === undefined ? canonicalJson([tenantId, detail, filter]) : null;
    const cached = key === null ? undefined : counts.get(key);
    const parameters = new SqlParameters();
    const known = parameters.add(cached?.revision ?? null, '::bigint');
    const tenant = parameters.add(tenantId);
    const where = memoryFilterSql(tenantId, filter, parameters);
    const [row] = await database.query<{ revision: number; total: number | null }>(
      `SELECT s.revision, CASE WHEN s.revision = ${known} THEN NULL
        ELSE (${countSql(where, parameters, detail)}) END AS total
      FROM (SELECT coalesce((SELECT revision FROM memory_revisions WHERE tenant_id = ${tenant}), 0) AS revision) AS s`,
      parameters.values,
    );
    const revision = Number(row?.revision ?? 0);
    if (cached && row && row.total === null) return { total: cached.total, revision };
    const total = Number(row?.total ?? 0);
    if (key !== null && row) counts.set(key, { revision, total });
    return { total, revision };
  };
}

/** `countMemories`: the memories that pass a filter, remembered with the memory revision. */
export function createPostgresMemoryCounts(database: Queryable) {
  const count = createRevisionCounts(database, (where) => `SELECT count(*) FROM memories m WHERE ${where}`);
  return async (tenantId: string, filter: MemoryFilter): Promise<number> =>
    (await count(tenantId, filter)).total;
}

/**
 * How many memories that pass a filter have a vector of `model`, counted no further than `atMost`
 * (a vector search only needs to know whether there are more than that), remembered with the
 * memory revision: counting 5,001 joined rows was a third of a vector search's time at 100,000
 * memories. Also gives the revision read (for `createExactScanCache`).
 */
export function createVectorCandidateCounts(database: Queryable, atMost: number) {
  const count = createRevisionCounts(
    database,
    (where, parameters, model) =>
      `SELECT count(*) FROM (SELECT 1 FROM memories m JOIN memory_embeddings e ON e.memory_pk = m.pk
        WHERE e.model = ${parameters.add(model)} AND ${where} LIMIT ${atMost}) AS c`,
  );
  return (
    tenantId: string,
    model: string,
    filter: MemoryFilter,
  ): Promise<{ total: number; revision: number }> => count(tenantId, filter, model);
}
