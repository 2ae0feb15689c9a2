import { randomInt } from 'node:crypto';
import { NotFoundError, StoreError, ValidationError } from '../../core/errors.js';
import type { NewMessage, StoredMessage } from '../../core/schemas/message.js';
import type { SessionKey, SessionState } from '../../core/schemas/session.js';
import type { EngramStore } from '../engram-store.js';
import { createdAtAfterReplace, findResentTail } from '../resent-tail.js';
import {
  assertExpectedVersion,
  assertSummaryAdvance,
  assertUniqueMessageIds,
  defaultMemoryStrategy,
  duplicateMessageIdError,
  emptyWorkingSet,
  expiryTime,
  idleSessionPage,
  isExpired,
  mergeSessionData,
  sessionKeyId,
  sumTokens,
  timestampMs,
  toStoredMessage,
} from '../session-rules.js';
import type {
  AppendOptions,
  IdleSessionQuery,
  MessageQuery,
  SessionListQuery,
  SessionPatch,
  SessionWrite,
  StoreOptions,
} from '../session-store.js';
import { isSqliteError, openDatabase, toStoreFailure } from './open-database.js';
import {
  jsonOrNull,
  keyParameters,
  messageParameters,
  rowToSessionState,
  rowToSummary,
  type SessionRow,
  tupleToMessage,
} from './rows.js';
import { createSqliteDocumentStore } from './sqlite-document-store.js';
import { createSqliteJobStore } from './sqlite-job-store.js';
import { createSqliteMemoryRecordStore } from './sqlite-memory-record-store.js';
import { sessionRevisionOf } from './sqlite-revision-reader.js';
import { type ListFilter, prepareStatements } from './statements.js';

export interface SqliteStoreOptions extends StoreOptions {
  /** Database file (parent directories are created), or `':memory:'` for a private in-memory database. */
  path: string;
  /** Compute vector distances with sqlite-vec when it loads (default); false forces the JavaScript fallback. */
  vectorExtension?: boolean;
}

/** A new session row's incarnation: 48 random bits, so a re-created session never looks like the old one. */
const newIncarnation = (): number => randomInt(2 ** 48 - 1) + 1;

/** A statement with RETURNING always yields its row; a missing one means the database misbehaved. */
/** Decodes a `listIdleSessions` cursor: [updated_at, pk] of the previous page's last row. */
function parseIdleCursor(cursor: string): [number, number] {
  const parsed: unknown = JSON.parse(cursor);
  if (!Array.isArray(parsed) || !Number.isInteger(parsed[0]) || !Number.isInteger(parsed[1])) {
    throw new ValidationError('Invalid idle-session cursor');
  }
  return [parsed[0] as number, parsed[1] as number];
}

function required(row: SessionRow | undefined): SessionRow {
  if (!row) throw new StoreError('SQLite returned no session row');
  return row;
}

/**
 * Creates the SQLite driver: a single file (or `':memory:'`) shared safely by several processes.
 * Every write runs in a `BEGIN IMMEDIATE` transaction; appends touch only the session row's counters
 * and the new message rows, so their cost does not grow with the session. Long-term memories live
 * in the same file, through the same connection (`memories`, see `sqlite-memory-record-store.ts`).
 */
const EMPTY_WORKING_SET = JSON.stringify(emptyWorkingSet());

export async function createSqliteStore(options: SqliteStoreOptions): Promise<EngramStore> {
  const database = await openDatabase(options.path);
  let memories: EngramStore['memories'];
  try {
    memories = await createSqliteMemoryRecordStore(database, {
      vectorExtension: options.vectorExtension ?? true,
    });
  } catch (error) {
    database.close();
    throw toStoreFailure(error);
  }
  const statements = prepareStatements(database);
  const clock = options.clock ?? (() => new Date());
  let closed = false;

  const liveSession = (key: SessionKey, nowMs: number): SessionRow | undefined => {
    const row = statements.selectSession.get(sessionKeyId(key));
    return row && !isExpired(row.expires_at, nowMs) ? row : undefined;
  };

  /** Like liveSession, but purges an expired row so the write starts a fresh session. */
  const sessionForWrite = (key: SessionKey, nowMs: number): SessionRow | undefined => {
    const row = statements.selectSession.get(sessionKeyId(key));
    if (row && isExpired(row.expires_at, nowMs)) {
      statements.deleteSessionByPk.run(row.pk);
      return undefined;
    }
    return row;
  };

  /** Inserts `messages` from `firstSeq` on; the UNIQUE (session_pk, id) index catches stored ids. */
  const insertMessages = (sessionPk: number, firstSeq: number, messages: readonly NewMessage[]): void => {
    messages.forEach((message, index) => {
      try {
        statements.insertMessage.run(...messageParameters(sessionPk, firstSeq + index, message));
      } catch (error) {
        if (isSqliteError(error) && error.code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw duplicateMessageIdError(message.id, index);
        }
        throw error;
      }
    });
  };

  const put = database.transaction(
    (key: SessionKey, write: SessionWrite, expected?: number): SessionState => {
      const nowMs = clock().getTime();
      const existing = sessionForWrite(key, nowMs);
      assertExpectedVersion(expected, existing?.version ?? null);
      assertUniqueMessageIds(write.messages);
      // Seqs are never reused, so a replace numbers its messages after the highest seq so far.
      const previousSeq = existing?.last_seq ?? 0;
      // The end of the log sent again (an AMS client's GET then PUT) keeps its rows and seqs.
      const resent =
        existing && write.messages.length > 0
          ? findResentTail(
              statements.readNewest
                .all({
                  session_pk: existing.pk,
                  after_seq: 0,
                  before_seq: Number.MAX_SAFE_INTEGER,
                  limit: write.messages.length,
                })
                .map(tupleToMessage)
                .reverse(),
              write.messages,
              previousSeq,
            )
          : null;
      const kept = resent?.kept ?? 0;
      const parameters = {
        ...keyParameters(key),
        data: jsonOrNull(write.data),
        context: write.context,
        memories: JSON.stringify(write.memories),
        strategy: JSON.stringify(write.longTermMemoryStrategy),
        ttl_seconds: write.ttlSeconds,
        version: (existing?.version ?? 0) + 1,
        created_at:
          write.createdAt === undefined
            ? (existing?.created_at ?? nowMs)
            : existing
              ? createdAtAfterReplace(existing.created_at, timestampMs(write.createdAt))
              : timestampMs(write.createdAt),
        updated_at: nowMs,
        expires_at: expiryTime(nowMs, write.ttlSeconds),
        message_count: write.messages.length,
        token_count: sumTokens(write.messages),
        last_seq: previousSeq + write.messages.length - kept,
        // A full replace keeps the user's curation: AMS bodies have no such field.
        working_set: existing?.working_set ?? EMPTY_WORKING_SET,
        summarized_through_seq: resent ? resent.firstSeq - 1 : previousSeq,
        summarized_messages: 0,
        summarized_tokens: 0,
      };
      if (existing && resent) statements.deleteMessagesBefore.run(existing.pk, resent.firstSeq);
      else if (existing) statements.deleteMessages.run(existing.pk);
      const row = required(
        existing
          ? statements.replaceSession.get({ ...parameters, pk: existing.pk })
          : statements.insertSession.get({ ...parameters, incarnation: newIncarnation() }),
      );
      insertMessages(row.pk, previousSeq + 1, kept > 0 ? write.messages.slice(kept) : write.messages);
      return rowToSessionState(row);
    },
  );

  const append = database.transaction(
    (key: SessionKey, messages: NewMessage[], appendOptions: AppendOptions) => {
      const nowMs = clock().getTime();
      const existing = sessionForWrite(key, nowMs);
      assertExpectedVersion(appendOptions.expectedVersion, existing?.version ?? null);
      assertUniqueMessageIds(messages);
      // A new session is inserted at version 0 and advanced with the others; nobody sees version 0.
      const session =
        existing ??
        required(
          statements.insertSession.get({
            ...keyParameters(key),
            data: null,
            context: null,
            memories: '[]',
            strategy: JSON.stringify(defaultMemoryStrategy()),
            ttl_seconds: appendOptions.ttlSeconds ?? null,
            version: 0,
            created_at: nowMs,
            updated_at: nowMs,
            expires_at: null,
            message_count: 0,
            token_count: 0,
            last_seq: 0,
            working_set: EMPTY_WORKING_SET,
            summarized_through_seq: 0,
            summarized_messages: 0,
            summarized_tokens: 0,
            incarnation: newIncarnation(),
          }),
        );
      const firstSeq = session.last_seq + 1;
      insertMessages(session.pk, firstSeq, messages);
      const row = statements.advanceSession.get({
        pk: session.pk,
        count: messages.length,
        tokens: sumTokens(messages),
        updated_at: nowMs,
        expires_at: expiryTime(nowMs, session.ttl_seconds),
      });
      const stored: StoredMessage[] = messages.map((message, index) =>
        toStoredMessage(message, firstSeq + index),
      );
      return { session: rowToSessionState(required(row)), messages: stored };
    },
  );

  const patch = database.transaction((key: SessionKey, change: SessionPatch, expected?: number) => {
    const nowMs = clock().getTime();
    const existing = sessionForWrite(key, nowMs);
    if (!existing) throw new NotFoundError('Session', key.sessionId);
    assertExpectedVersion(expected, existing.version);
    const data = change.dataPatch
      ? jsonOrNull(
          mergeSessionData(existing.data === null ? null : JSON.parse(existing.data), change.dataPatch),
        )
      : existing.data;
    const ttlSeconds = change.ttlSeconds === undefined ? existing.ttl_seconds : change.ttlSeconds;
    const mark = {
      throughSeq: existing.summarized_through_seq,
      messages: existing.summarized_messages,
      tokens: existing.summarized_tokens,
    };
    let summarized = mark;
    if (change.summary) {
      assertSummaryAdvance(change.summary, mark, existing.last_seq, {
        context: existing.context,
        createdAt: new Date(existing.created_at).toISOString(),
      });
      const covered = statements.sumMessages.get(
        existing.pk,
        change.summary.expectedThroughSeq,
        change.summary.throughSeq,
      );
      summarized = {
        throughSeq: change.summary.throughSeq,
        messages: mark.messages + (covered?.messages ?? 0),
        tokens: mark.tokens + (covered?.tokens ?? 0),
      };
    }
    const row = statements.patchSession.get({
      pk: existing.pk,
      data,
      context: change.summary
        ? change.summary.context
        : change.context === undefined
          ? existing.context
          : change.context,
      summarized_through_seq: summarized.throughSeq,
      summarized_messages: summarized.messages,
      summarized_tokens: summarized.tokens,
      memories: change.memories === undefined ? existing.memories : JSON.stringify(change.memories),
      ttl_seconds: ttlSeconds,
      working_set: change.workingSet === undefined ? existing.working_set : JSON.stringify(change.workingSet),
      ...(change.keepExpiry && change.ttlSeconds === undefined
        ? { updated_at: existing.updated_at, expires_at: existing.expires_at }
        : { updated_at: nowMs, expires_at: expiryTime(nowMs, ttlSeconds) }),
    });
    return rowToSessionState(required(row));
  });

  const remove = database.transaction((key: SessionKey): boolean => {
    const row = statements.deleteSessionByKey.get(sessionKeyId(key));
    return row !== undefined && !isExpired(row.expires_at, clock().getTime());
  });

  // Cascades to messages; `changes` counts only the session rows the statement itself deleted.
  const sweep = database.transaction((): number => statements.deleteExpired.run(clock().getTime()).changes);

  // Reads run in a deferred transaction: one WAL snapshot, so the session row and its messages agree.
  const read = database.transaction((key: SessionKey, query: MessageQuery): StoredMessage[] => {
    const session = liveSession(key, clock().getTime());
    if (!session || (query.limit !== undefined && query.limit <= 0)) return [];
    const range = {
      session_pk: session.pk,
      after_seq: query.afterSeq ?? 0,
      before_seq: query.beforeSeq ?? Number.MAX_SAFE_INTEGER,
      limit: query.limit ?? -1,
    };
    const statement = query.order === 'oldest-first' ? statements.readOldest : statements.readNewest;
    return statement.all(range).map(tupleToMessage);
  });

  const list = database.transaction((query: SessionListQuery) => {
    const filter: ListFilter = {
      tenant_id: query.tenantId,
      now: clock().getTime(),
      any_namespace: query.namespace === undefined ? 1 : 0,
      namespace: query.namespace ?? null,
      any_user: query.userId === undefined ? 1 : 0,
      user_id: query.userId ?? null,
      any_session: query.sessionId === undefined ? 1 : 0,
      session_id: query.sessionId ?? null,
    };
    const page = { ...filter, limit: Math.max(0, query.limit), offset: Math.max(0, query.offset) };
    const sessions = statements.listSessions.all(page).map(rowToSummary);
    return { sessions, total: statements.countSessions.get(filter)?.total ?? 0 };
  });

  const listIdle = (query: IdleSessionQuery) => {
    const [afterUpdated, afterPk] = query.after === undefined ? [-1, 0] : parseIdleCursor(query.after);
    const limit = Math.max(0, query.limit);
    // One row more than the page tells whether another page follows.
    const rows = statements.listIdle.all({
      from: query.updatedFrom === undefined ? Number.MIN_SAFE_INTEGER : Date.parse(query.updatedFrom),
      before: Date.parse(query.updatedBefore),
      after_updated: afterUpdated,
      after_pk: afterPk,
      tenant_id: query.tenantId ?? null,
      now: clock().getTime(),
      limit: limit + 1,
    });
    return idleSessionPage(rows, limit);
  };

  /** Runs `work` unless the store is closed, mapping SQLite failures to StoreError. Always async. */
  const guarded = async <T>(work: () => T): Promise<T> => {
    if (closed) throw new StoreError('The sqlite session store is closed');
    try {
      return work();
    } catch (error) {
      throw toStoreFailure(error);
    }
  };

  return {
    driver: 'sqlite',
    capabilities: { durable: options.path !== ':memory:' && options.path !== '', multiProcess: true },
    memories,
    documents: createSqliteDocumentStore(database, clock, guarded),
    jobs: createSqliteJobStore(database, clock, guarded),
    getSession: (key) =>
      guarded(() => {
        const row = liveSession(key, clock().getTime());
        return row ? rowToSessionState(row) : null;
      }),
    readMessages: (key, query) => guarded(() => read(key, query)),
    sessionRevision: (key) =>
      guarded(() => sessionRevisionOf(statements.selectRevision.get(sessionKeyId(key)), clock().getTime())),
    putSession: (key, write, writeOptions) =>
      guarded(() => put.immediate(key, write, writeOptions?.expectedVersion)),
    appendMessages: (key, messages, appendOptions) =>
      guarded(() => append.immediate(key, messages, appendOptions ?? {})),
    patchSession: (key, change, writeOptions) =>
      guarded(() => patch.immediate(key, change, writeOptions?.expectedVersion)),
    deleteSession: (key) => guarded(() => remove.immediate(key)),
    listSessions: (query) => guarded(() => list(query)),
    listIdleSessions: (query) => guarded(() => listIdle(query)),
    deleteExpired: () => guarded(() => sweep.immediate()),
    close: async () => {
      if (closed) return;
      closed = true;
      database.close();
    },
  };
}
