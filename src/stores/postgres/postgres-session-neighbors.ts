import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import type { MemoryRecordStore } from '../memory-record-store.js';
import { uniqueIds } from '../memory-rules.js';
import { memoryFilterSql, SqlParameters } from './memory-filter-sql.js';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * The contract's `sessionNeighbors` in one statement: for each anchor memory with a session, the
 * ids of up to `window` memories of the same session just before and just after it (by creation
 * time, then id) that pass `filter`, read through the session index.
 */
export async function postgresSessionNeighbors(
  database: PostgresDatabase,
  tenantId: string,
  ids: readonly string[],
  filter: MemoryFilter,
  window: number,
): ReturnType<MemoryRecordStore['sessionNeighbors']> {
  const wanted = uniqueIds(ids);
  if (wanted.length === 0) return [];
  const parameters = new SqlParameters();
  const tenant = parameters.add(tenantId);
  const anchors = parameters.add(wanted, '::text[]');
  const where = memoryFilterSql(tenantId, filter, parameters);
  const size = parameters.add(Math.max(0, window));
  const side = (before: boolean) => `ARRAY(SELECT m.id FROM memories m
      WHERE m.session_id = a.session_id AND (m.created_at, m.id) ${before ? '<' : '>'} (a.created_at, a.id)
        AND ${where}
      ORDER BY m.created_at ${before ? 'DESC' : 'ASC'}, m.id ${before ? 'DESC' : 'ASC'} LIMIT ${size})`;
  const rows = await database.query<{
    id: string;
    session_id: string;
    before: string[];
    after: string[];
  }>(
    `SELECT a.id, a.session_id, ${side(true)} AS before, ${side(false)} AS after
    FROM memories a WHERE a.tenant_id = ${tenant} AND a.id = ANY(${anchors}) AND a.session_id IS NOT NULL`,
    parameters.values,
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return wanted.flatMap((id) => {
    const row = byId.get(id);
    return row ? [{ id, sessionId: row.session_id, before: row.before, after: row.after }] : [];
  });
}
