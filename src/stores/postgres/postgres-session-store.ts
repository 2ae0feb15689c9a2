import { randomInt } from 'node:crypto';
import { NotFoundError, StoreError, VersionConflictError } from '../../core/errors.js';
import type { NewMessage } from '../../core/schemas/message.js';
import type { SessionKey } from '../../core/schemas/session.js';
import { createdAtAfterReplace, findResentTail } from '../resent-tail.js';
import {
  assertExpectedVersion,
  assertSummaryAdvance,
  assertUniqueMessageIds,
  defaultMemoryStrategy,
  duplicateMessageIdError,
  emptyWorkingSet,
  expiryTime,
  isExpired,
  mergeSessionData,
  sessionKeyId,
  sumTokens,
  timestampMs,
  toStoredMessage,
} from '../session-rules.js';
import type { SessionStore } from '../session-store.js';
import { type PostgresDatabase, type Queryable, sqlState } from './postgres-database.js';
import { listPostgresIdleSessions, listPostgresSessions } from './postgres-session-listing.js';
import {
  INSERT_MESSAGES,
  keyValues,
  type MessageRow,
  messageColumns,
  rowToMessage,
  rowToSessionState,
  type SessionRow,
} from './session-rows.js';

/** A new session row's incarnation: 48 random bits, so a re-created session never looks like the old one. */
const newIncarnation = (): number => randomInt(2 ** 48 - 1) + 1;

const MESSAGE_COLUMNS =
  'seq, id, role, content, name, tool_calls, tool_call_id, created_at, token_count, token_encoding';

const INSERT_SESSION = `INSERT INTO sessions (session_key, tenant_id, namespace, user_id, session_id, data,
    context, memories, strategy, ttl_seconds, version, created_at, updated_at, expires_at, message_count,
    token_count, last_seq, working_set, summarized_through_seq, summarized_messages, summarized_tokens,
    incarnation)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
  ON CONFLICT (session_key) DO NOTHING RETURNING *`;

const required = (row: SessionRow | undefined): SessionRow => {
  if (!row) throw new StoreError('PostgreSQL returned no session row');
  return row;
};

const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

/**
 * The session part of the PostgreSQL driver. Every write is one transaction that locks the
 * session's row (`SELECT ... FOR UPDATE`), so concurrent writers from any number of servers are
 * serialized per session and never per table; an append inserts only its new message rows and
 * moves the row's counters, so its cost does not grow with the session. Times come from `clock`
 * (as in the other drivers), never from the database server.
 */
export function createPostgresSessionStore(
  database: PostgresDatabase,
  clock: () => Date,
): Omit<SessionStore, 'close' | 'capabilities' | 'driver'> {
  /** The key's row, locked; an expired one is deleted so the write starts a fresh session. */
  const lockForWrite = async (client: Queryable, key: SessionKey, nowMs: number) => {
    const [row] = await client.query<SessionRow>('SELECT * FROM sessions WHERE session_key = $1 FOR UPDATE', [
      sessionKeyId(key),
    ]);
    if (row && isExpired(row.expires_at, nowMs)) {
      await client.query('DELETE FROM sessions WHERE pk = $1', [row.pk]);
      return undefined;
    }
    return row;
  };

  /**
   * The key's live row, locked, or a new one made from `values` (INSERT_SESSION's parameters) when
   * there is none; `created` tells which. Two servers creating one session at once: the loser's
   * insert waits for the winner's commit, then locks the winner's row.
   */
  const lockOrCreate = async (client: Queryable, key: SessionKey, nowMs: number, values: () => unknown[]) => {
    const existing = await lockForWrite(client, key, nowMs);
    if (existing) return { row: existing, created: false };
    const [inserted] = await client.query<SessionRow>(INSERT_SESSION, [...keyValues(key), ...values()]);
    if (inserted) return { row: inserted, created: true };
    return { row: required(await lockForWrite(client, key, nowMs)), created: false };
  };

  const insertMessages = async (
    client: Queryable,
    sessionPk: number,
    firstSeq: number,
    messages: readonly NewMessage[],
  ) => {
    if (messages.length === 0) return;
    const written = await client.query<{ id: string }>(INSERT_MESSAGES, [
      sessionPk,
      firstSeq,
      ...messageColumns(messages),
    ]);
    if (written.length === messages.length) return;
    const stored = new Set(written.map((row) => row.id));
    const index = messages.findIndex((message) => !stored.has(message.id));
    throw duplicateMessageIdError(messages[index]?.id ?? '', index);
  };

  const live = (row: SessionRow | undefined, nowMs: number) =>
    row && !isExpired(row.expires_at, nowMs) ? row : undefined;

  return {
    async getSession(key) {
      const [row] = await database.query<SessionRow>('SELECT * FROM sessions WHERE session_key = $1', [
        sessionKeyId(key),
      ]);
      const found = live(row, clock().getTime());
      return found ? rowToSessionState(found) : null;
    },

    async readMessages(key, query) {
      if (query.limit !== undefined && query.limit <= 0) return [];
      const direction = query.order === 'oldest-first' ? 'ASC' : 'DESC';
      // One statement: the live-session test and the range read see one snapshot.
      const rows = await database.query<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages
        WHERE session_pk = (SELECT pk FROM sessions WHERE session_key = $1
            AND (expires_at IS NULL OR expires_at > $2))
          AND seq > $3 AND seq < $4
        ORDER BY seq ${direction} LIMIT $5`,
        [
          sessionKeyId(key),
          clock().getTime(),
          query.afterSeq ?? 0,
          query.beforeSeq ?? Number.MAX_SAFE_INTEGER,
          query.limit ?? null,
        ],
      );
      return rows.map(rowToMessage);
    },

    async sessionRevision(key) {
      const [row] = await database.query<Pick<SessionRow, 'incarnation' | 'version' | 'expires_at'>>(
        'SELECT incarnation, version, expires_at FROM sessions WHERE session_key = $1',
        [sessionKeyId(key)],
      );
      if (!row || isExpired(row.expires_at, clock().getTime())) return null;
      return `${row.incarnation}.${row.version}`;
    },

    putSession: (key, write, options) =>
      database.transaction(async (client) => {
        const nowMs = clock().getTime();
        assertUniqueMessageIds(write.messages);
        const createdAt = write.createdAt === undefined ? undefined : timestampMs(write.createdAt);
        const fields = (version: number, created: number, previousSeq: number) => [
          json(write.data),
          write.context,
          JSON.stringify(write.memories),
          JSON.stringify(write.longTermMemoryStrategy),
          write.ttlSeconds,
          version,
          created,
          nowMs,
          expiryTime(nowMs, write.ttlSeconds),
          write.messages.length,
          sumTokens(write.messages),
          previousSeq + write.messages.length,
        ];
        const { row: current, created } = await lockOrCreate(client, key, nowMs, () => [
          ...fields(1, createdAt ?? nowMs, 0),
          JSON.stringify(emptyWorkingSet()),
          0,
          0,
          0,
          newIncarnation(),
        ]);
        assertExpectedVersion(options?.expectedVersion, created ? null : current.version);
        let row = current;
        const previousSeq = created ? 0 : current.last_seq;
        // The end of the log sent again (an AMS client's GET then PUT) keeps its rows and seqs.
        const resent =
          !created && write.messages.length > 0
            ? findResentTail(
                (
                  await client.query<MessageRow>(
                    `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_pk = $1 ORDER BY seq DESC LIMIT $2`,
                    [current.pk, write.messages.length],
                  )
                )
                  .map(rowToMessage)
                  .reverse(),
                write.messages,
                previousSeq,
              )
            : null;
        const kept = resent?.kept ?? 0;
        if (!created) {
          await client.query('DELETE FROM messages WHERE session_pk = $1 AND seq < $2', [
            current.pk,
            resent ? resent.firstSeq : Number.MAX_SAFE_INTEGER,
          ]);
          // A full replace keeps the user's curation (working set): AMS bodies have no such field.
          [row] = (await client.query<SessionRow>(
            `UPDATE sessions SET data = $1, context = $2, memories = $3, strategy = $4, ttl_seconds = $5,
              version = $6, created_at = $7, updated_at = $8, expires_at = $9, message_count = $10,
              token_count = $11, last_seq = $12, summarized_through_seq = $13, summarized_messages = 0,
              summarized_tokens = 0
            WHERE pk = $14 RETURNING *`,
            [
              // last_seq counts only the new messages: the kept ones already have their seqs.
              ...fields(
                current.version + 1,
                createdAt === undefined
                  ? current.created_at
                  : createdAtAfterReplace(current.created_at, createdAt),
                previousSeq - kept,
              ),
              resent ? resent.firstSeq - 1 : previousSeq,
              current.pk,
            ],
          )) as [SessionRow];
        }
        const stored = required(row);
        await insertMessages(
          client,
          stored.pk,
          previousSeq + 1,
          kept > 0 ? write.messages.slice(kept) : write.messages,
        );
        return rowToSessionState(stored);
      }),

    async appendMessages(key, messages, options = {}) {
      const nowMs = clock().getTime();
      assertUniqueMessageIds(messages);
      // One round trip: the function locks or creates the row, checks, inserts and counts (migration 3).
      let rows: SessionRow[];
      try {
        rows = await database.query<SessionRow>(
          `SELECT * FROM engram_append_messages($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
            $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
          [
            ...keyValues(key),
            nowMs,
            options.ttlSeconds ?? null,
            options.expectedVersion ?? null,
            JSON.stringify(defaultMemoryStrategy()),
            JSON.stringify(emptyWorkingSet()),
            newIncarnation(),
            ...messageColumns(messages),
          ],
        );
      } catch (error) {
        throw appendFailure(error, messages, options.expectedVersion);
      }
      const session = required(rows[0]);
      const firstSeq = session.last_seq - messages.length + 1;
      return {
        session: rowToSessionState(session),
        messages: messages.map((message, index) => toStoredMessage(message, firstSeq + index)),
      };
    },

    patchSession: (key, change, options) =>
      database.transaction(async (client) => {
        const nowMs = clock().getTime();
        const existing = await lockForWrite(client, key, nowMs);
        if (!existing) throw new NotFoundError('Session', key.sessionId);
        assertExpectedVersion(options?.expectedVersion, existing.version);
        const data = change.dataPatch ? mergeSessionData(existing.data, change.dataPatch) : existing.data;
        const ttlSeconds = change.ttlSeconds === undefined ? existing.ttl_seconds : change.ttlSeconds;
        let summarized = {
          throughSeq: existing.summarized_through_seq,
          messages: existing.summarized_messages,
          tokens: existing.summarized_tokens,
        };
        if (change.summary) {
          assertSummaryAdvance(change.summary, summarized, existing.last_seq, {
            context: existing.context,
            createdAt: new Date(existing.created_at).toISOString(),
          });
          const [covered] = await client.query<{ messages: number; tokens: number }>(
            `SELECT count(*)::bigint AS messages, coalesce(sum(token_count), 0)::bigint AS tokens
            FROM messages WHERE session_pk = $1 AND seq > $2 AND seq <= $3`,
            [existing.pk, change.summary.expectedThroughSeq, change.summary.throughSeq],
          );
          summarized = {
            throughSeq: change.summary.throughSeq,
            messages: summarized.messages + (covered?.messages ?? 0),
            tokens: summarized.tokens + (covered?.tokens ?? 0),
          };
        }
        const context = change.summary
          ? change.summary.context
          : change.context === undefined
            ? existing.context
            : change.context;
        const [row] = await client.query<SessionRow>(
          `UPDATE sessions SET data = $2, context = $3, memories = $4, ttl_seconds = $5, working_set = $6,
            version = version + 1, updated_at = $7, expires_at = $8, summarized_through_seq = $9,
            summarized_messages = $10, summarized_tokens = $11
          WHERE pk = $1 RETURNING *`,
          [
            existing.pk,
            json(data),
            context,
            JSON.stringify(change.memories ?? existing.memories),
            ttlSeconds,
            JSON.stringify(change.workingSet ?? existing.working_set),
            ...(change.keepExpiry && change.ttlSeconds === undefined
              ? [existing.updated_at, existing.expires_at]
              : [nowMs, expiryTime(nowMs, ttlSeconds)]),
            summarized.throughSeq,
            summarized.messages,
            summarized.tokens,
          ],
        );
        return rowToSessionState(required(row));
      }),

    async deleteSession(key) {
      const [row] = await database.query<{ expires_at: number | null }>(
        'DELETE FROM sessions WHERE session_key = $1 RETURNING expires_at',
        [sessionKeyId(key)],
      );
      return row !== undefined && !isExpired(row.expires_at, clock().getTime());
    },

    listSessions: (query) => listPostgresSessions(database, clock().getTime(), query),
    listIdleSessions: (query) => listPostgresIdleSessions(database, clock().getTime(), query),

    async deleteExpired() {
      const rows = await database.query<{ pk: number }>(
        'DELETE FROM sessions WHERE expires_at <= $1 RETURNING pk',
        [clock().getTime()],
      );
      return rows.length;
    },
  };
}

/** The contract error a failed `engram_append_messages` call stands for (its SQLSTATE says which), or the failure itself. */
function appendFailure(
  error: unknown,
  messages: readonly NewMessage[],
  expected: number | undefined,
): unknown {
  const cause = error instanceof StoreError ? error.cause : undefined;
  const detail = String((cause as { detail?: unknown } | undefined)?.detail ?? '');
  const state = sqlState(cause);
  if (state === 'EG409')
    return new VersionConflictError(expected ?? 0, detail === 'null' ? null : Number(detail));
  if (state === 'EG400') {
    const index = Math.max(
      0,
      messages.findIndex((message) => message.id === detail),
    );
    return duplicateMessageIdError(detail, index);
  }
  return error;
}
