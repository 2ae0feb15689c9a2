import type { Database, Statement } from 'better-sqlite3';
import type { MessageTuple, SessionParameters, SessionRow, SummaryRow } from './rows.js';
import { SELECT_REVISION_SQL } from './sqlite-revision-reader.js';

/** Named parameters of the listing queries; the `any*` flags are 1 when a filter is absent. */
export interface ListFilter {
  tenant_id: string;
  now: number;
  any_namespace: 0 | 1;
  namespace: string | null;
  any_user: 0 | 1;
  user_id: string | null;
  any_session: 0 | 1;
  session_id: string | null;
}

/** Parameters of a message range read: seq > after_seq AND seq < before_seq, at most `limit` (-1 = all). */
export interface MessageRange {
  session_pk: number;
  after_seq: number;
  before_seq: number;
  limit: number;
}

const SESSION_COLUMNS = `session_key, tenant_id, namespace, user_id, session_id, data, context, memories,
  strategy, ttl_seconds, version, created_at, updated_at, expires_at, message_count, token_count, last_seq,
  working_set, summarized_through_seq, summarized_messages, summarized_tokens, incarnation`;

const LIVE_FILTER = `tenant_id = @tenant_id
  AND (expires_at IS NULL OR expires_at > @now)
  AND (@any_namespace = 1 OR namespace IS @namespace)
  AND (@any_user = 1 OR user_id IS @user_id)
  AND (@any_session = 1 OR session_id = @session_id)`;

/** A raw revision row: incarnation, version, expires_at. */
export type RevisionTuple = [number, number, number | null];

/** Column order of MessageTuple. */
const MESSAGE_COLUMNS =
  'seq, id, role, content, name, tool_calls, tool_call_id, created_at, token_count, token_encoding';

const MESSAGE_RANGE = 'session_pk = @session_pk AND seq > @after_seq AND seq < @before_seq';

/** A replace keeps the row, so it keeps its incarnation. */
type SessionReplacement = Omit<SessionParameters, 'incarnation'> & { pk: number };

type SessionUpdate = Pick<
  SessionRow,
  | 'pk'
  | 'data'
  | 'context'
  | 'memories'
  | 'ttl_seconds'
  | 'updated_at'
  | 'expires_at'
  | 'working_set'
  | 'summarized_through_seq'
  | 'summarized_messages'
  | 'summarized_tokens'
>;
type SessionAdvance = {
  pk: number;
  count: number;
  tokens: number;
  updated_at: number;
  expires_at: number | null;
};

/** The prepared statements of one open database (named so declaration output can spell the type). */
export interface Statements {
  selectSession: Statement<[string], SessionRow>;
  selectRevision: Statement<[string], RevisionTuple>;
  insertSession: Statement<[SessionParameters], SessionRow>;
  replaceSession: Statement<[SessionReplacement], SessionRow>;
  advanceSession: Statement<[SessionAdvance], SessionRow>;
  patchSession: Statement<[SessionUpdate], SessionRow>;
  sumMessages: Statement<[number, number, number], { messages: number; tokens: number }>;
  deleteSessionByPk: Statement<[number]>;
  deleteSessionByKey: Statement<[string], Pick<SessionRow, 'expires_at'>>;
  deleteExpired: Statement<[number]>;
  deleteMessages: Statement<[number]>;
  deleteMessagesBefore: Statement<[number, number]>;
  insertMessage: Statement<(string | number | null)[]>;
  readOldest: Statement<[MessageRange], MessageTuple>;
  readNewest: Statement<[MessageRange], MessageTuple>;
  listSessions: Statement<[ListFilter & { limit: number; offset: number }], SummaryRow>;
  countSessions: Statement<[ListFilter], { total: number }>;
  listIdle: Statement<[IdleRange], IdleRow>;
}

/** Parameters of an idle-session page: from <= updated_at < before, after (after_updated, after_pk). */
export interface IdleRange {
  from: number;
  before: number;
  after_updated: number;
  after_pk: number;
  /** Null = every tenant. */
  tenant_id: string | null;
  now: number;
  limit: number;
}

export type IdleRow = Pick<
  SessionRow,
  'pk' | 'tenant_id' | 'namespace' | 'user_id' | 'session_id' | 'created_at' | 'updated_at' | 'last_seq'
>;

/** Every statement the driver runs, prepared once when the store opens. */
export function prepareStatements(database: Database): Statements {
  return {
    selectSession: database.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE session_key = ?'),
    selectRevision: database.prepare<[string], RevisionTuple>(SELECT_REVISION_SQL).raw(true),
    insertSession: database.prepare<SessionParameters, SessionRow>(
      `INSERT INTO sessions (${SESSION_COLUMNS}) VALUES (${SESSION_COLUMNS.replace(/(\w+)/g, '@$1')}) RETURNING *`,
    ),
    replaceSession: database.prepare<SessionReplacement, SessionRow>(
      `UPDATE sessions SET data = @data, context = @context, memories = @memories, strategy = @strategy,
        ttl_seconds = @ttl_seconds, version = @version, created_at = @created_at, updated_at = @updated_at,
        expires_at = @expires_at, message_count = @message_count, token_count = @token_count,
        last_seq = @last_seq, working_set = @working_set, summarized_through_seq = @summarized_through_seq,
        summarized_messages = @summarized_messages, summarized_tokens = @summarized_tokens
      WHERE pk = @pk RETURNING *`,
    ),
    /** O(1) in the session's length: counters move, existing messages are never read. */
    advanceSession: database.prepare<SessionAdvance, SessionRow>(
      `UPDATE sessions SET version = version + 1, updated_at = @updated_at, expires_at = @expires_at,
        message_count = message_count + @count, token_count = token_count + @tokens,
        last_seq = last_seq + @count
      WHERE pk = @pk RETURNING *`,
    ),
    patchSession: database.prepare<SessionUpdate, SessionRow>(
      `UPDATE sessions SET data = @data, context = @context, memories = @memories,
        ttl_seconds = @ttl_seconds, working_set = @working_set, version = version + 1,
        updated_at = @updated_at, expires_at = @expires_at, summarized_through_seq = @summarized_through_seq,
        summarized_messages = @summarized_messages, summarized_tokens = @summarized_tokens
      WHERE pk = @pk RETURNING *`,
    ),
    /** What a summary patch covers: the messages in a seq range, via the (session_pk, seq) key. */
    sumMessages: database.prepare<[number, number, number], { messages: number; tokens: number }>(
      `SELECT count(*) AS messages, coalesce(sum(token_count), 0) AS tokens FROM messages
      WHERE session_pk = ? AND seq > ? AND seq <= ?`,
    ),
    deleteSessionByPk: database.prepare<[number]>('DELETE FROM sessions WHERE pk = ?'),
    deleteSessionByKey: database.prepare<[string], Pick<SessionRow, 'expires_at'>>(
      'DELETE FROM sessions WHERE session_key = ? RETURNING expires_at',
    ),
    deleteExpired: database.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?'),
    deleteMessages: database.prepare<[number]>('DELETE FROM messages WHERE session_pk = ?'),
    deleteMessagesBefore: database.prepare<[number, number]>(
      'DELETE FROM messages WHERE session_pk = ? AND seq < ?',
    ),
    insertMessage: database.prepare<(string | number | null)[]>(
      `INSERT INTO messages (session_pk, seq, id, role, content, name, tool_calls, tool_call_id, created_at,
        token_count, token_encoding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // Both walk the (session_pk, seq) primary key from one end: cost follows `limit`. Raw rows
    // (arrays in MESSAGE_COLUMNS order) decode ~40% faster than objects on this hot path.
    readOldest: database
      .prepare<MessageRange, MessageTuple>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${MESSAGE_RANGE} ORDER BY seq ASC LIMIT @limit`,
      )
      .raw(true),
    readNewest: database
      .prepare<MessageRange, MessageTuple>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${MESSAGE_RANGE} ORDER BY seq DESC LIMIT @limit`,
      )
      .raw(true),
    listSessions: database.prepare<ListFilter & { limit: number; offset: number }, SummaryRow>(
      `SELECT tenant_id, namespace, user_id, session_id, updated_at, message_count FROM sessions
      WHERE ${LIVE_FILTER}
      ORDER BY updated_at DESC, tenant_id, namespace, user_id, session_id
      LIMIT @limit OFFSET @offset`,
    ),
    countSessions: database.prepare<ListFilter, { total: number }>(
      `SELECT COUNT(*) AS total FROM sessions WHERE ${LIVE_FILTER}`,
    ),
    listIdle: database.prepare<IdleRange, IdleRow>(
      `SELECT pk, tenant_id, namespace, user_id, session_id, created_at, updated_at, last_seq FROM sessions
      WHERE updated_at >= @from AND updated_at < @before
        AND (updated_at > @after_updated OR (updated_at = @after_updated AND pk > @after_pk))
        AND (expires_at IS NULL OR expires_at > @now)
        AND (@tenant_id IS NULL OR tenant_id = @tenant_id)
      ORDER BY updated_at, pk LIMIT @limit`,
    ),
  };
}
