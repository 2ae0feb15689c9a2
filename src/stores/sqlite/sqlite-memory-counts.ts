import type { Database } from 'better-sqlite3';
import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { CountCache } from '../count-cache.js';
import { memoryFilterSql } from './memory-filter-sql.js';
import { countSql, type StatementCache } from './memory-record-statements.js';

/**
 * Counts of filtered memories (hybrid search's total), remembered until a write: this
 * connection's (the store calls `clear`) or another's (PRAGMA data_version moves).
 */
export function createSqliteMemoryCounts(database: Database, cache: StatementCache) {
  const counts = new CountCache();
  const dataVersion = database.prepare<[], number>('PRAGMA data_version').pluck();
  let countedVersion = dataVersion.get();
  return {
    count(tenantId: string, filter: MemoryFilter): number {
      const version = dataVersion.get();
      if (version !== countedVersion) {
        counts.clear();
        countedVersion = version;
      }
      return counts.get(tenantId, filter, () => {
        const where = memoryFilterSql(tenantId, filter);
        return cache.get<{ total: number }>(countSql(where)).get(where.parameters)?.total ?? 0;
      });
    },
    /** After a write of this connection. */
    clear: () => counts.clear(),
    /** After access statistics moved (counts filtered on them are stale). */
    clearAccessDependent: () => counts.clearAccessDependent(),
  };
}
