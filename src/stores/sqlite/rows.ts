import type { JsonObject } from '../../core/schemas/json.js';
import type { MessageRole, NewMessage, StoredMessage } from '../../core/schemas/message.js';
import type {
  MemoryStrategy,
  PendingMemory,
  SessionKey,
  SessionState,
  SessionSummary,
  SessionWorkingSet,
} from '../../core/schemas/session.js';
import { sessionKeyId } from '../session-rules.js';

/** A `sessions` row as better-sqlite3 returns it. */
export interface SessionRow {
  pk: number;
  session_key: string;
  tenant_id: string;
  namespace: string | null;
  user_id: string | null;
  session_id: string;
  data: string | null;
  context: string | null;
  memories: string;
  strategy: string;
  ttl_seconds: number | null;
  version: number;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
  message_count: number;
  token_count: number;
  last_seq: number;
  /** JSON of the session's pinned and removed memory ids. */
  working_set: string;
  summarized_through_seq: number;
  summarized_messages: number;
  summarized_tokens: number;
  /** Random, drawn when the row is inserted: tells a re-created session from the one before it. */
  incarnation: number;
}

/** A listing row: the key columns plus what a summary shows. */
export type SummaryRow = Pick<
  SessionRow,
  'tenant_id' | 'namespace' | 'user_id' | 'session_id' | 'updated_at' | 'message_count'
>;

/** Named parameters for inserting a whole session row. */
export type SessionParameters = Omit<SessionRow, 'pk'>;

const isoOrNull = (epochMs: number | null): string | null =>
  epochMs === null ? null : new Date(epochMs).toISOString();

/** The columns that identify a session, bound as named parameters. */
export function keyParameters(
  key: SessionKey,
): Pick<SessionRow, 'session_key' | 'tenant_id' | 'namespace' | 'user_id' | 'session_id'> {
  return {
    session_key: sessionKeyId(key),
    tenant_id: key.tenantId,
    namespace: key.namespace,
    user_id: key.userId,
    session_id: key.sessionId,
  };
}

/** JSON text for a nullable column; SQL NULL stands for a null value. */
export function jsonOrNull(value: JsonObject | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

export function rowToSessionState(row: SessionRow): SessionState {
  return {
    tenantId: row.tenant_id,
    namespace: row.namespace,
    userId: row.user_id,
    sessionId: row.session_id,
    data: row.data === null ? null : (JSON.parse(row.data) as JsonObject),
    context: row.context,
    memories: JSON.parse(row.memories) as PendingMemory[],
    longTermMemoryStrategy: JSON.parse(row.strategy) as MemoryStrategy,
    workingSet: JSON.parse(row.working_set) as SessionWorkingSet,
    ttlSeconds: row.ttl_seconds,
    version: row.version,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    expiresAt: isoOrNull(row.expires_at),
    messageCount: row.message_count,
    tokenCount: row.token_count,
    lastSeq: row.last_seq,
    summarized: {
      throughSeq: row.summarized_through_seq,
      messages: row.summarized_messages,
      tokens: row.summarized_tokens,
    },
  };
}

/** Positional parameters for `INSERT INTO messages`, in column order. */
export function messageParameters(
  sessionPk: number,
  seq: number,
  message: NewMessage,
): (string | number | null)[] {
  return [
    sessionPk,
    seq,
    message.id,
    message.role,
    message.content,
    message.name ?? null,
    message.toolCalls === undefined ? null : JSON.stringify(message.toolCalls),
    message.toolCallId ?? null,
    message.createdAt,
    message.tokenCount,
    message.tokenEncoding,
  ];
}

/** A raw `messages` row: seq, id, role, content, name, tool_calls, tool_call_id, created_at, token_count, token_encoding. */
export type MessageTuple = [
  number,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string,
  number,
  string,
];

/** A stored message, without keys for absent optional fields (as the memory driver returns them). */
export function tupleToMessage(row: MessageTuple): StoredMessage {
  const [seq, id, role, content, name, toolCalls, toolCallId, createdAt, tokenCount, tokenEncoding] = row;
  const message: StoredMessage = {
    id,
    seq,
    role: role as MessageRole,
    content,
    createdAt,
    tokenCount,
    tokenEncoding,
  };
  if (name !== null) message.name = name;
  if (toolCalls !== null) message.toolCalls = JSON.parse(toolCalls) as StoredMessage['toolCalls'];
  if (toolCallId !== null) message.toolCallId = toolCallId;
  return message;
}

export function rowToSummary(row: SummaryRow): SessionSummary {
  return {
    tenantId: row.tenant_id,
    namespace: row.namespace,
    userId: row.user_id,
    sessionId: row.session_id,
    updatedAt: new Date(row.updated_at).toISOString(),
    messageCount: row.message_count,
  };
}
