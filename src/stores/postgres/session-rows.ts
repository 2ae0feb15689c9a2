import { ValidationError } from '../../core/errors.js';
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

/** A `sessions` row as node-postgres returns it (jsonb parsed, bigint as number). */
export interface SessionRow {
  pk: number;
  tenant_id: string;
  namespace: string | null;
  user_id: string | null;
  session_id: string;
  data: JsonObject | null;
  context: string | null;
  memories: PendingMemory[];
  strategy: MemoryStrategy;
  ttl_seconds: number | null;
  version: number;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
  message_count: number;
  token_count: number;
  last_seq: number;
  working_set: SessionWorkingSet;
  summarized_through_seq: number;
  summarized_messages: number;
  summarized_tokens: number;
  incarnation: number;
}

export interface MessageRow {
  seq: number;
  id: string;
  role: string;
  content: string;
  name: string | null;
  tool_calls: StoredMessage['toolCalls'] | null;
  tool_call_id: string | null;
  created_at: string;
  token_count: number;
  token_encoding: string;
}

const isoOrNull = (epochMs: number | null): string | null =>
  epochMs === null ? null : new Date(epochMs).toISOString();

export function rowToSessionState(row: SessionRow): SessionState {
  return {
    tenantId: row.tenant_id,
    namespace: row.namespace,
    userId: row.user_id,
    sessionId: row.session_id,
    data: row.data,
    context: row.context,
    memories: row.memories,
    longTermMemoryStrategy: row.strategy,
    workingSet: row.working_set,
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

export function rowToSummary(
  row: Pick<
    SessionRow,
    'tenant_id' | 'namespace' | 'user_id' | 'session_id' | 'updated_at' | 'message_count'
  >,
): SessionSummary {
  return {
    tenantId: row.tenant_id,
    namespace: row.namespace,
    userId: row.user_id,
    sessionId: row.session_id,
    updatedAt: new Date(row.updated_at).toISOString(),
    messageCount: row.message_count,
  };
}

/** A stored message, without keys for absent optional fields (as the other drivers return them). */
export function rowToMessage(row: MessageRow): StoredMessage {
  const message: StoredMessage = {
    id: row.id,
    seq: row.seq,
    role: row.role as MessageRole,
    content: row.content,
    createdAt: row.created_at,
    tokenCount: row.token_count,
    tokenEncoding: row.token_encoding,
  };
  if (row.name !== null) message.name = row.name;
  if (row.tool_calls !== null) message.toolCalls = row.tool_calls;
  if (row.tool_call_id !== null) message.toolCallId = row.tool_call_id;
  return message;
}

/**
 * The columns of a batch of messages as parallel arrays, for one `INSERT ... SELECT FROM unnest(...)`:
 * one statement (one round trip) whatever the batch size.
 */
export function messageColumns(messages: readonly NewMessage[]): unknown[] {
  return [
    messages.map((message) => message.id),
    messages.map((message) => message.role),
    messages.map((message) => message.content),
    messages.map((message) => message.name ?? null),
    messages.map((message) => (message.toolCalls === undefined ? null : JSON.stringify(message.toolCalls))),
    messages.map((message) => message.toolCallId ?? null),
    messages.map((message) => message.createdAt),
    messages.map((message) => message.tokenCount),
    messages.map((message) => message.tokenEncoding),
  ];
}

/** `INSERT` of a batch from `messageColumns` ($3..$11) for session $1 from seq $2 on; returns the ids written. */
export const INSERT_MESSAGES = `INSERT INTO messages (session_pk, seq, id, role, content, name, tool_calls,
    tool_call_id, created_at, token_count, token_encoding)
  SELECT $1, $2 + ordinality - 1, id, role, content, name, tool_calls::jsonb, tool_call_id, created_at,
    token_count, token_encoding
  FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
    $10::bigint[], $11::text[]) WITH ORDINALITY
    AS m(id, role, content, name, tool_calls, tool_call_id, created_at, token_count, token_encoding, ordinality)
  ON CONFLICT (session_pk, id) DO NOTHING
  RETURNING id`;

/** Decodes a `listIdleSessions` cursor: [updated_at, pk] of the previous page's last row. */
export function parseIdleCursor(cursor: string): [number, number] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(cursor);
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || !Number.isInteger(parsed[0]) || !Number.isInteger(parsed[1])) {
    throw new ValidationError('Invalid idle-session cursor');
  }
  return [parsed[0] as number, parsed[1] as number];
}

/** session_key, tenant_id, namespace, user_id, session_id. */
export function keyValues(key: SessionKey): [string, string, string | null, string | null, string] {
  return [sessionKeyId(key), key.tenantId, key.namespace, key.userId, key.sessionId];
}
