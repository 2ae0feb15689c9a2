import { idleSessionPage } from '../session-rules.js';
import type { SessionListQuery, SessionStore } from '../session-store.js';
import type { Queryable } from './postgres-database.js';
import { parseIdleCursor, rowToSummary, type SessionRow } from './session-rows.js';

/** `listSessions` of the PostgreSQL store: one page of a tenant's live sessions and their total, newest first. */
export async function listPostgresSessions(
  database: Queryable,
  nowMs: number,
  query: SessionListQuery,
): ReturnType<SessionStore['listSessions']> {
  const where = `tenant_id = $1 AND (expires_at IS NULL OR expires_at > $2)
    AND ($3 OR namespace IS NOT DISTINCT FROM $4) AND ($5 OR user_id IS NOT DISTINCT FROM $6)
    AND ($7 OR session_id = $8)`;
  const filter = [
    query.tenantId,
    nowMs,
    query.namespace === undefined,
    query.namespace ?? null,
    query.userId === undefined,
    query.userId ?? null,
    query.sessionId === undefined,
    query.sessionId ?? null,
  ];
  // One statement: the page and its total come from one snapshot.
  const rows = await database.query<SessionRow & { total: number }>(
    `WITH matches AS (SELECT tenant_id, namespace, user_id, session_id, updated_at, message_count
        FROM sessions WHERE ${where})
    SELECT page.*, (SELECT count(*) FROM matches)::bigint AS total
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (SELECT * FROM matches
      ORDER BY updated_at DESC, tenant_id, namespace NULLS FIRST, user_id NULLS FIRST, session_id
      LIMIT $9 OFFSET $10) AS page ON true`,
    [...filter, Math.max(0, query.limit), Math.max(0, query.offset)],
  );
  const total = rows[0]?.total ?? 0;
  const sessions = rows.filter((row) => row.session_id !== null).map(rowToSummary);
  return { sessions, total };
}

/** `listIdleSessions` of the PostgreSQL store: live sessions last written in a range, oldest first, by cursor. */
export async function listPostgresIdleSessions(
  database: Queryable,
  nowMs: number,
  query: Parameters<SessionStore['listIdleSessions']>[0],
): ReturnType<SessionStore['listIdleSessions']> {
  const [afterUpdated, afterPk] = query.after === undefined ? [-1, 0] : parseIdleCursor(query.after);
  const limit = Math.max(0, query.limit);
  const rows = await database.query<SessionRow>(
    `SELECT pk, tenant_id, namespace, user_id, session_id, created_at, updated_at, last_seq FROM sessions
    WHERE updated_at >= $1 AND updated_at < $2 AND (updated_at, pk) > ($3, $4)
      AND (expires_at IS NULL OR expires_at > $5) AND ($7::text IS NULL OR tenant_id = $7)
    ORDER BY updated_at, pk LIMIT $6`,
    [
      query.updatedFrom === undefined ? Number.MIN_SAFE_INTEGER : Date.parse(query.updatedFrom),
      Date.parse(query.updatedBefore),
      afterUpdated,
      afterPk,
      nowMs,
      limit + 1,
      query.tenantId ?? null,
    ],
  );
  return idleSessionPage(rows, limit);
}
