import type { JsonObject } from '../core/schemas/json.js';
import type { NewMessage, StoredMessage } from '../core/schemas/message.js';
import type {
  MemoryStrategy,
  PendingMemory,
  SessionKey,
  SessionState,
  SessionSummary,
  SessionWorkingSet,
} from '../core/schemas/session.js';

/**
 * The session store contract. Every driver (memory, sqlite; later postgres, redis) implements it
 * and passes `test/conformance/`. Inputs arrive validated and normalized by the engine: drivers do
 * no tokenizing and no id generation, only storage, ordering, versioning and expiry.
 *
 * Rules every driver follows:
 * - Every acknowledged write is durable (as far as the backend allows) before its promise resolves.
 * - Every write increments `version` by one; a new session starts at version 1.
 * - `expectedVersion` (when given) must equal the stored version, else VersionConflictError and
 *   nothing changes. `expectedVersion: 0` means "the session must not exist yet".
 * - An expired session (expiresAt <= now) does not exist for reads or writes: a write to it starts
 *   a fresh session (its old messages are gone), and `deleteExpired` removes it physically.
 * - Every write refreshes the expiry clock: expiresAt = now + ttlSeconds.
 * - Message `seq` is assigned by the store, strictly increasing per session, never reused.
 * - A message id already present in the session fails the write with a ValidationError.
 * - Every method reports failure by rejecting its promise, never by throwing synchronously.
 * - Results are copies: mutating one (or an input after the call) never changes the store.
 * - Session timestamps come back as UTC ISO text (`toISOString`); message fields come back exactly
 *   as written.
 */
export interface SessionStore {
  /** Driver name, e.g. `memory` or `sqlite`. */
  readonly driver: string;
  readonly capabilities: StoreCapabilities;

  /** The session's state without messages, or null if absent or expired. */
  getSession(key: SessionKey): Promise<SessionState | null>;

  /**
   * Reads messages in `seq` order (`newest-first`: descending seq); cost depends on `limit`, not on
   * the session's length. An absent or expired session has no messages.
   */
  readMessages(key: SessionKey, query: MessageQuery): Promise<StoredMessage[]>;

  /**
   * An opaque token naming the session's current state, or null if absent or expired: it changes
   * with every write, also one by another process sharing the backend, and a deleted and re-created
   * session never gets a token it had before (its `version` restarts at 1). Cheap (one key lookup),
   * so a cache of anything derived from the session can be validated on each use.
   */
  sessionRevision(key: SessionKey): Promise<string | null>;

  /**
   * Replaces the whole session (messages included), creating it if absent. The new messages get
   * seqs above the highest seq the session ever had, so a reader's seq cursor never sees reuse.
   * The summary mark moves to the previous `lastSeq` with zero counts: the written `context`
   * stands for whatever came before, and none of the new messages is summarized. One exception
   * (`findResentTail`): when the write opens with the end of the stored log sent again, unchanged
   * (times to the second), those messages keep their rows and seqs, the ones before them are
   * deleted, and the mark moves to just before them; that is how AMS clients append, and marks
   * kept by seq (extraction, session end) must not see them as new. Likewise a `createdAt` in
   * the same second as the stored one keeps the stored one (`createdAtAfterReplace`). The driver
   * keeps no reference to `write` or its messages: the caller may change them afterwards (the
   * engine numbers them in place).
   */
  putSession(key: SessionKey, write: SessionWrite, options?: WriteOptions): Promise<SessionState>;

  /** Atomically appends messages (creating the session if absent), in the given order. */
  appendMessages(
    key: SessionKey,
    messages: NewMessage[],
    options?: AppendOptions,
  ): Promise<{ session: SessionState; messages: StoredMessage[] }>;

  /**
   * Updates fields other than messages atomically. `dataPatch` is an RFC 7386 JSON merge patch
   * (null data counts as `{}`). Rejects with NotFoundError when the session is absent or expired.
   */
  patchSession(key: SessionKey, patch: SessionPatch, options?: WriteOptions): Promise<SessionState>;

  /** Deletes the session and its messages. Resolves true if a live session was deleted. */
  deleteSession(key: SessionKey): Promise<boolean>;

  /**
   * Lists live sessions of a tenant, newest `updatedAt` first, ties broken by namespace, user id and
   * session id ascending (by code point, null first); `total` counts every match, not just the page.
   */
  listSessions(query: SessionListQuery): Promise<{ sessions: SessionSummary[]; total: number }>;

  /**
   * Live sessions of every tenant (or of `tenantId`) with `updatedFrom <= updatedAt < updatedBefore`,
   * oldest `updatedAt` first, for background sweeps (ending inactive sessions) and exports. Pages by an opaque driver
   * cursor: `cursor` is null on the last page, else passed back as `after` for the next one; a
   * session written meanwhile moves out of the range rather than appearing twice.
   */
  listIdleSessions(query: IdleSessionQuery): Promise<{ sessions: IdleSession[]; cursor: string | null }>;

  /** Physically deletes expired sessions; resolves the number deleted. */
  deleteExpired(): Promise<number>;

  /** Releases the backend; closing twice is harmless. Every other call afterwards rejects with StoreError. */
  close(): Promise<void>;
}

/** Optional abilities, so callers can adapt instead of catching "not implemented". */
export interface StoreCapabilities {
  /** Acknowledged writes survive a process crash. */
  durable: boolean;
  /** Several processes may share the backend safely. */
  multiProcess: boolean;
  /**
   * `putSession` takes its messages as an encoded array (`EncodedMessages`, built by
   * `encodeMessages` in another thread) and decodes them where it writes them: the store thread
   * does, so the calling thread never holds a large PUT's message objects. Absent: the caller
   * decodes them first (`decodeMessages`).
   */
  encodedMessages?: boolean;
}

export interface MessageQuery {
  order: 'oldest-first' | 'newest-first';
  /** At most this many messages; absent = all. */
  limit?: number;
  /** Only messages with seq < beforeSeq. */
  beforeSeq?: number;
  /** Only messages with seq > afterSeq. */
  afterSeq?: number;
}

export interface SessionWrite {
  messages: NewMessage[];
  memories: PendingMemory[];
  data: JsonObject | null;
  context: string | null;
  ttlSeconds: number | null;
  longTermMemoryStrategy: MemoryStrategy;
  /** Keeps the first creation time unless the caller supplies one. */
  createdAt?: string;
}

export interface SessionPatch {
  dataPatch?: JsonObject;
  context?: string | null;
  memories?: PendingMemory[];
  ttlSeconds?: number | null;
  /** Replaces the session's pinned and removed memory ids. */
  workingSet?: SessionWorkingSet;
  /**
   * Records a summarization: `context` becomes the summary and the mark moves to `throughSeq`.
   * A compare-and-set on the mark, not on `version`, so appends made while the summary was being
   * written never conflict with it: the store rejects with VersionConflictError (what: `summary`)
   * unless the stored `summarized.throughSeq` equals `expectedThroughSeq`, and with ValidationError
   * unless expectedThroughSeq < throughSeq <= lastSeq. Overrides a `context` in the same patch.
   * `expectedContext` and `expectedCreatedAt`, when given, must also match the stored `context`
   * and `createdAt` (else VersionConflictError): a summary begun on a session that was since
   * deleted and created again, or whose context a caller replaced meanwhile, must not land.
   */
  /**
   * A write engram makes on its own (a running summary, the stamp of promoted memories): the
   * session's `updatedAt` and expiry stay as the caller's last write left them, so a TTL counts
   * from that write and a session idles by its callers. Ignored when `ttlSeconds` changes.
   */
  keepExpiry?: boolean;
  summary?: {
    context: string;
    throughSeq: number;
    expectedThroughSeq: number;
    expectedContext?: string | null;
    expectedCreatedAt?: string;
  };
}

export interface WriteOptions {
  expectedVersion?: number;
}

export interface AppendOptions extends WriteOptions {
  /** TTL for a session the append creates; an existing session keeps its own. */
  ttlSeconds?: number | null;
}

export interface SessionListQuery {
  tenantId: string;
  /** Absent = any namespace; null = only sessions without one. Likewise `userId`. */
  namespace?: string | null;
  userId?: string | null;
  sessionId?: string;
  limit: number;
  offset: number;
}

export interface IdleSessionQuery {
  /** ISO time; absent = no lower bound. */
  updatedFrom?: string;
  /** ISO time, exclusive. */
  updatedBefore: string;
  /** The previous page's `cursor`. */
  after?: string;
  /** Only this tenant's sessions; absent = every tenant. */
  tenantId?: string;
  limit: number;
}

/** A row of an idle-session listing: enough to end the session without reading it. */
export interface IdleSession extends SessionKey {
  /** Tells a session from an earlier one of the same key that was deleted. */
  createdAt: string;
  updatedAt: string;
  lastSeq: number;
}

/** Options every driver factory accepts. `clock` exists for deterministic TTL tests. */
export interface StoreOptions {
  clock?: () => Date;
}
