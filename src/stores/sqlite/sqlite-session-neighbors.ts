import type { Database } from 'better-sqlite3';
import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import type { SessionNeighbors } from '../memory-record-store.js';
import { uniqueIds } from '../memory-rules.js';
import { memoryFilterSql } from './memory-filter-sql.js';
import type { MemoryRow } from './memory-record-rows.js';
import {
  type MemoryStatements,
  type StatementCache,
  sessionNeighborsSql,
} from './memory-record-statements.js';

/**
 * The SQLite driver's `sessionNeighbors`, as one read transaction: for each anchor with a
 * session, up to `window` ids of the same session's memories just before and after it (by
 * creation time, then id) that pass `filter`.
 */
export function createSessionNeighbors(
  database: Database,
  cache: StatementCache,
  statements: MemoryStatements,
): (tenantId: string, ids: string[], filter: MemoryFilter, window: number) => SessionNeighbors[] {
  return database.transaction(
    (tenantId: string, ids: string[], filter: MemoryFilter, window: number): SessionNeighbors[] => {
      const where = memoryFilterSql(tenantId, filter);
      const side = (name: 'before' | 'after', anchor: MemoryRow): string[] =>
        window <= 0
          ? []
          : cache
              .get<{ id: string }>(sessionNeighborsSql(where, name))
              .all({
                ...where.parameters,
                session_id: anchor.session_id as string,
                created_at: anchor.created_at,
                id: anchor.id,
                window,
              })
              .map((row) => row.id);
      return uniqueIds(ids).flatMap((id) => {
        const anchor = statements.selectById.get(tenantId, id);
        if (!anchor || anchor.session_id === null) return [];
        return [
          { id, sessionId: anchor.session_id, before: side('before', anchor), after: side('after', anchor) },
        ];
      });
    },
  );
}
