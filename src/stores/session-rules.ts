import { ValidationError, VersionConflictError } from '../core/errors.js';
import { applyMergePatch } from '../core/merge-patch.js';
import { type JsonObject, MAX_DATA_BYTES } from '../core/schemas/json.js';
import type { NewMessage, StoredMessage } from '../core/schemas/message.js';
import type { MemoryStrategy, SessionKey, SessionWorkingSet, SummaryMark } from '../core/schemas/session.js';
import type { IdleSession, SessionPatch } from './session-store.js';

/**
 * Rules of the session store contract that do not depend on the backend, shared by every driver so
 * that they agree to the letter (see `session-store.ts`).
 */

/** The strategy of a session that `appendMessages` creates. */
/** A session's working-set curation before anyone pins or removes anything. */
export function emptyWorkingSet(): SessionWorkingSet {
  return { pinned: [], removed: [] };
}

export function defaultMemoryStrategy(): MemoryStrategy {
  return { strategy: 'discrete', config: {} };
}

/**
 * An injective string for a session key: JSON keeps the four parts apart and tells `null` from any
 * string, so no tenant, namespace, user or session id can make two keys collide.
 */
export function sessionKeyId(key: SessionKey): string {
  return JSON.stringify([key.tenantId, key.namespace, key.userId, key.sessionId]);
}

/** A copy of the key's own four fields (a caller's object may carry more). */
export function copyKey(key: SessionKey): SessionKey {
  return { tenantId: key.tenantId, namespace: key.namespace, userId: key.userId, sessionId: key.sessionId };
}

/** Expiry instant in epoch milliseconds for a write at `nowMs`; null when the session never expires. */
export function expiryTime(nowMs: number, ttlSeconds: number | null): number | null {
  return ttlSeconds === null ? null : nowMs + ttlSeconds * 1000;
}

/** A session whose expiry is at or before now no longer exists. */
export function isExpired(expiresAtMs: number | null, nowMs: number): boolean {
  return expiresAtMs !== null && expiresAtMs <= nowMs;
}

/** The mark of a session nothing of which is summarized yet. */
export const unsummarized = (throughSeq = 0): SummaryMark => ({ throughSeq, messages: 0, tokens: 0 });

/** Checks a summary patch against the stored mark and last seq (see SessionPatch.summary). */
export function assertSummaryAdvance(
  summary: NonNullable<SessionPatch['summary']>,
  current: SummaryMark,
  lastSeq: number,
  basis: { context: string | null; createdAt: string },
): void {
  if (current.throughSeq !== summary.expectedThroughSeq) {
    throw new VersionConflictError(summary.expectedThroughSeq, current.throughSeq, 'summary');
  }
  const contextChanged = summary.expectedContext !== undefined && summary.expectedContext !== basis.context;
  const recreated = summary.expectedCreatedAt !== undefined && summary.expectedCreatedAt !== basis.createdAt;
  if (contextChanged || recreated) {
    throw new VersionConflictError(
      summary.expectedThroughSeq,
      current.throughSeq,
      recreated ? 'summary of a session created again since' : 'summary of a context replaced since',
    );
  }
  if (summary.throughSeq <= summary.expectedThroughSeq || summary.throughSeq > lastSeq) {
    throw new ValidationError(
      `A summary must cover seqs after ${summary.expectedThroughSeq} up to at most ${lastSeq}`,
      [{ path: ['summary', 'throughSeq'], message: `Out of range: ${summary.throughSeq}` }],
    );
  }
}

/** Throws VersionConflictError unless `expected` (when given) matches; 0 means "must not exist". */
export function assertExpectedVersion(
  expected: number | undefined,
  actual: number | null,
  what = 'session',
): void {
  if (expected === undefined) return;
  const matches = expected === 0 ? actual === null : actual === expected;
  if (!matches) throw new VersionConflictError(expected, actual, what);
}

/** The error for a message id that is already in the session (or twice in one write). */
export function duplicateMessageIdError(id: string, index: number): ValidationError {
  return new ValidationError(`Message id ${id} already exists in this session`, [
    { path: ['messages', index, 'id'], message: `Duplicate message id ${id}` },
  ]);
}

/** Throws a ValidationError when an id repeats within `messages` or `isTaken` reports it as stored. */
export function assertUniqueMessageIds(
  messages: readonly NewMessage[],
  isTaken: (id: string) => boolean = () => false,
): void {
  const seen = new Set<string>();
  messages.forEach((message, index) => {
    if (seen.has(message.id) || isTaken(message.id)) throw duplicateMessageIdError(message.id, index);
    seen.add(message.id);
  });
}

/**
 * Applies a merge patch to session data; absent data counts as `{}`, and the result stays an
 * object within MAX_DATA_BYTES, as data a PUT writes must (several patches that each fit could
 * otherwise grow it past what a PUT, an export's import or a GET-then-PUT client could write back).
 */
export function mergeSessionData(data: JsonObject | null, patch: JsonObject): JsonObject {
  const merged = applyMergePatch(data ?? {}, patch);
  if (typeof merged !== 'object' || merged === null || Array.isArray(merged)) {
    throw new ValidationError('dataPatch must leave session data a JSON object');
  }
  const bytes = Buffer.byteLength(JSON.stringify(merged));
  if (bytes > MAX_DATA_BYTES) {
    throw new ValidationError(
      `dataPatch would make session data ${bytes} bytes; session data is limited to ${MAX_DATA_BYTES} bytes (MAX_DATA_BYTES)`,
      [{ path: ['dataPatch'], message: `session data is limited to ${MAX_DATA_BYTES} bytes` }],
    );
  }
  return merged;
}

/**
 * Epoch milliseconds of a caller-supplied ISO timestamp. Drivers return session times in UTC
 * `toISOString` form, so an offset given on write comes back normalized.
 */
export function timestampMs(value: string): number {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new ValidationError(`Invalid timestamp ${value}`);
  return time;
}

/** A stored copy of `message` at `seq`, without keys for absent optional fields. */
export function toStoredMessage(message: NewMessage, seq: number): StoredMessage {
  const stored: StoredMessage = {
    id: message.id,
    seq,
    role: message.role,
    content: message.content,
    createdAt: message.createdAt,
    tokenCount: message.tokenCount,
    tokenEncoding: message.tokenEncoding,
  };
  if (message.name !== undefined) stored.name = message.name;
  if (message.toolCalls !== undefined) stored.toolCalls = structuredClone(message.toolCalls);
  if (message.toolCallId !== undefined) stored.toolCallId = message.toolCallId;
  return stored;
}

/** Sum of the cached token counts of `messages`. */
export function sumTokens(messages: readonly NewMessage[]): number {
  let total = 0;
  for (const message of messages) total += message.tokenCount;
  return total;
}

/** A session row as both SQL drivers read it for the idle listing (epoch-ms times). */
export interface IdleRow {
  pk: number;
  tenant_id: string;
  namespace: string | null;
  user_id: string | null;
  session_id: string;
  created_at: number;
  updated_at: number;
  last_seq: number;
}

/**
 * One page of `listIdleSessions` from `limit + 1` rows in (updated_at, pk) order: the extra row
 * says whether a next page exists, and the cursor is the page's last (updated_at, pk).
 */
export function idleSessionPage(
  rows: readonly IdleRow[],
  limit: number,
): { sessions: IdleSession[]; cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    sessions: page.map((row) => ({
      tenantId: row.tenant_id,
      namespace: row.namespace,
      userId: row.user_id,
      sessionId: row.session_id,
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
      lastSeq: row.last_seq,
    })),
    cursor: last && rows.length > limit ? JSON.stringify([last.updated_at, last.pk]) : null,
  };
}
