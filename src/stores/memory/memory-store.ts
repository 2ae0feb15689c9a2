import { NotFoundError, StoreError, ValidationError } from '../../core/errors.js';
import type { StoredMessage } from '../../core/schemas/message.js';
import type { SessionKey, SessionState, SessionSummary } from '../../core/schemas/session.js';
import type { EngramStore } from '../engram-store.js';
import { createdAtAfterReplace, findResentTail } from '../resent-tail.js';
import {
  assertExpectedVersion,
  assertSummaryAdvance,
  assertUniqueMessageIds,
  copyKey,
  defaultMemoryStrategy,
  emptyWorkingSet,
  expiryTime,
  isExpired,
  mergeSessionData,
  sessionKeyId,
  sumTokens,
  timestampMs,
  toStoredMessage,
  unsummarized,
} from '../session-rules.js';
import type { IdleSession, MessageQuery, StoreOptions } from '../session-store.js';
import { compareCodePoints, compareListOrder } from './list-order.js';
import { createMemoryDocumentStore } from './memory-document-store.js';
import { createMemoryJobStore } from './memory-job-store.js';
import { createMemoryRecordStore } from './memory-record-store.js';

/** Where a session sits in the idle listing: updatedAt (ms), then its key id by code point. */
type IdlePosition = [number, string];

function compareIdlePositions(left: IdlePosition, right: IdlePosition): number {
  return left[0] - right[0] || compareCodePoints(left[1], right[1]);
}

function parseIdleCursor(cursor: string): IdlePosition {
  const parsed: unknown = JSON.parse(cursor);
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'number' || typeof parsed[1] !== 'string') {
    throw new ValidationError('Invalid idle-session cursor');
  }
  return [parsed[0], parsed[1]];
}

/** One session as held in memory. Never handed out: callers get structured clones. */
interface SessionRecord {
  state: SessionState;
  /** Ordered by strictly increasing `seq`. */
  messages: StoredMessage[];
  /** Ids of `messages`, so the duplicate check costs O(appended), not O(session). */
  messageIds: Set<string>;
  expiresAtMs: number | null;
  /** Set by every write from a store-wide counter, so a re-created session never repeats one. */
  revision: number;
}

/** Index of the first message whose seq is >= `seq` (binary search: messages are seq-ordered). */
function firstIndexAtOrAfter(messages: readonly StoredMessage[], seq: number): number {
  let low = 0;
  let high = messages.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((messages[middle]?.seq ?? Number.POSITIVE_INFINITY) < seq) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Messages matching `query`, in its order; O(log n + limit). */
function selectMessages(messages: readonly StoredMessage[], query: MessageQuery): StoredMessage[] {
  const start = query.afterSeq === undefined ? 0 : firstIndexAtOrAfter(messages, query.afterSeq + 1);
  const end =
    query.beforeSeq === undefined ? messages.length : firstIndexAtOrAfter(messages, query.beforeSeq);
  const limit = Math.max(0, query.limit ?? Number.POSITIVE_INFINITY);
  if (end <= start || limit === 0) return [];
  if (query.order === 'oldest-first') return messages.slice(start, Math.min(end, start + limit));
  return messages.slice(Math.max(start, end - limit), end).reverse();
}

/**
 * Creates the in-memory reference driver: every contract rule, no persistence. Each method runs to
 * completion synchronously inside its promise, so concurrent calls never interleave. For tests,
 * demos and single-process use; listing and sweeping scan all sessions. Long-term memories live in
 * `memories` (see `memory-record-store.ts` in this folder).
 */
export function createMemoryStore(options: StoreOptions = {}): EngramStore {
  const clock = options.clock ?? (() => new Date());
  const sessions = new Map<string, SessionRecord>();
  const memories = createMemoryRecordStore(options);
  let closed = false;
  let revisions = 0;
  const documents = createMemoryDocumentStore(clock, () => closed);
  const jobs = createMemoryJobStore(clock, () => closed);

  const ensureOpen = (): void => {
    if (closed) throw new StoreError('The memory session store is closed');
  };

  /** The live record for `id`; an expired one is purged first so a write starts fresh. */
  const liveRecord = (id: string, nowMs: number): SessionRecord | undefined => {
    const record = sessions.get(id);
    if (record && isExpired(record.expiresAtMs, nowMs)) {
      sessions.delete(id);
      return undefined;
    }
    return record;
  };

  /** Starts a write: checks the store is open, reads the clock once, and finds the live record. */
  const beginWrite = (key: SessionKey) => {
    ensureOpen();
    const now = clock();
    const id = sessionKeyId(key);
    return { now, id, existing: liveRecord(id, now.getTime()) };
  };

  /** Stores `state`, stamping version, update time and expiry as every write does. */
  const commit = (
    id: string,
    record: SessionRecord,
    now: Date,
    expiresAtMs = expiryTime(now.getTime(), record.state.ttlSeconds),
  ): SessionState => {
    revisions += 1;
    record.revision = revisions;
    record.state.updatedAt = now.toISOString();
    record.expiresAtMs = expiresAtMs;
    record.state.expiresAt = record.expiresAtMs === null ? null : new Date(record.expiresAtMs).toISOString();
    sessions.set(id, record);
    return structuredClone(record.state);
  };

  const store: EngramStore = {
    driver: 'memory',
    capabilities: { durable: false, multiProcess: false },
    memories,
    documents,
    jobs,

    async getSession(key) {
      ensureOpen();
      const record = liveRecord(sessionKeyId(key), clock().getTime());
      return record ? structuredClone(record.state) : null;
    },

    async sessionRevision(key) {
      ensureOpen();
      const record = liveRecord(sessionKeyId(key), clock().getTime());
      return record ? String(record.revision) : null;
    },

    async readMessages(key, query) {
      ensureOpen();
      const record = liveRecord(sessionKeyId(key), clock().getTime());
      return record ? structuredClone(selectMessages(record.messages, query)) : [];
    },

    async putSession(key, write, writeOptions = {}) {
      const { now, id, existing } = beginWrite(key);
      assertExpectedVersion(writeOptions.expectedVersion, existing?.state.version ?? null);
      assertUniqueMessageIds(write.messages);
      // Seqs are never reused, so a replace numbers its messages after the highest seq so far.
      const previousSeq = existing?.state.lastSeq ?? 0;
      // The end of the log sent again (an AMS client's GET then PUT) keeps its messages and seqs.
      const resent =
        existing && write.messages.length > 0
          ? findResentTail(existing.messages.slice(-write.messages.length), write.messages, previousSeq)
          : null;
      const kept = resent ? (existing?.messages.slice(-resent.kept) ?? []) : [];
      const messages = [
        ...kept,
        ...write.messages
          .slice(kept.length)
          .map((message, index) => toStoredMessage(message, previousSeq + 1 + index)),
      ];
      const sentMs = write.createdAt === undefined ? undefined : timestampMs(write.createdAt);
      const createdAt =
        sentMs === undefined
          ? undefined
          : new Date(
              existing ? createdAtAfterReplace(Date.parse(existing.state.createdAt), sentMs) : sentMs,
            ).toISOString();
      const state: SessionState = {
        ...copyKey(key),
        data: structuredClone(write.data),
        context: write.context,
        memories: structuredClone(write.memories),
        longTermMemoryStrategy: structuredClone(write.longTermMemoryStrategy),
        // A full replace keeps the user's curation: AMS bodies have no such field.
        workingSet: existing ? structuredClone(existing.state.workingSet) : emptyWorkingSet(),
        ttlSeconds: write.ttlSeconds,
        version: (existing?.state.version ?? 0) + 1,
        createdAt: createdAt ?? existing?.state.createdAt ?? now.toISOString(),
        updatedAt: '',
        expiresAt: null,
        messageCount: messages.length,
        tokenCount: sumTokens(messages),
        lastSeq: previousSeq + messages.length - kept.length,
        summarized: unsummarized(resent ? resent.firstSeq - 1 : previousSeq),
      };
      const messageIds = new Set(messages.map((message) => message.id));
      return commit(id, { state, messages, messageIds, expiresAtMs: null, revision: 0 }, now);
    },

    async appendMessages(key, newMessages, appendOptions = {}) {
      const { now, id, existing } = beginWrite(key);
      assertExpectedVersion(appendOptions.expectedVersion, existing?.state.version ?? null);
      assertUniqueMessageIds(newMessages, (messageId) => existing?.messageIds.has(messageId) ?? false);
      const record = existing ?? {
        state: {
          ...copyKey(key),
          data: null,
          context: null,
          memories: [],
          longTermMemoryStrategy: defaultMemoryStrategy(),
          workingSet: emptyWorkingSet(),
          ttlSeconds: appendOptions.ttlSeconds ?? null,
          version: 0,
          createdAt: now.toISOString(),
          updatedAt: '',
          expiresAt: null,
          messageCount: 0,
          tokenCount: 0,
          lastSeq: 0,
          summarized: unsummarized(),
        },
        messages: [],
        messageIds: new Set<string>(),
        expiresAtMs: null,
        revision: 0,
      };
      const firstSeq = record.state.lastSeq + 1;
      const stored = newMessages.map((message, index) => toStoredMessage(message, firstSeq + index));
      for (const message of stored) {
        record.messages.push(message);
        record.messageIds.add(message.id);
      }
      record.state.version += 1;
      record.state.lastSeq += stored.length;
      record.state.messageCount += stored.length;
      record.state.tokenCount += sumTokens(stored);
      const session = commit(id, record, now);
      return { session, messages: structuredClone(stored) };
    },

    async patchSession(key, patch, writeOptions = {}) {
      const { now, id, existing } = beginWrite(key);
      if (!existing) throw new NotFoundError('Session', key.sessionId);
      assertExpectedVersion(writeOptions.expectedVersion, existing.state.version);
      // Compute everything that can fail before touching the record, so a failure changes nothing.
      const data = patch.dataPatch
        ? mergeSessionData(existing.state.data, patch.dataPatch)
        : existing.state.data;
      const state = existing.state;
      let summarized = state.summarized;
      if (patch.summary) {
        assertSummaryAdvance(patch.summary, state.summarized, state.lastSeq, state);
        const start = firstIndexAtOrAfter(existing.messages, patch.summary.expectedThroughSeq + 1);
        const end = firstIndexAtOrAfter(existing.messages, patch.summary.throughSeq + 1);
        const covered = existing.messages.slice(start, end);
        summarized = {
          throughSeq: patch.summary.throughSeq,
          messages: state.summarized.messages + covered.length,
          tokens: state.summarized.tokens + sumTokens(covered),
        };
      }
      state.data = data;
      state.summarized = summarized;
      if (patch.summary) state.context = patch.summary.context;
      if (patch.context !== undefined && !patch.summary) state.context = patch.context;
      if (patch.memories !== undefined) state.memories = structuredClone(patch.memories);
      if (patch.workingSet !== undefined) state.workingSet = structuredClone(patch.workingSet);
      if (patch.ttlSeconds !== undefined) state.ttlSeconds = patch.ttlSeconds;
      state.version += 1;
      if (patch.keepExpiry && patch.ttlSeconds === undefined) {
        // The caller's last write stays the session's: its time and expiry as they were.
        return commit(id, existing, new Date(state.updatedAt), existing.expiresAtMs);
      }
      return commit(id, existing, now);
    },

    async deleteSession(key) {
      ensureOpen();
      const id = sessionKeyId(key);
      const live = liveRecord(id, clock().getTime()) !== undefined;
      sessions.delete(id);
      return live;
    },

    async listSessions(query) {
      ensureOpen();
      const nowMs = clock().getTime();
      const matches: SessionSummary[] = [];
      for (const record of sessions.values()) {
        const state = record.state;
        if (state.tenantId !== query.tenantId || isExpired(record.expiresAtMs, nowMs)) continue;
        if (query.namespace !== undefined && state.namespace !== query.namespace) continue;
        if (query.userId !== undefined && state.userId !== query.userId) continue;
        if (query.sessionId !== undefined && state.sessionId !== query.sessionId) continue;
        matches.push({ ...copyKey(state), updatedAt: state.updatedAt, messageCount: state.messageCount });
      }
      matches.sort(compareListOrder);
      const offset = Math.max(0, query.offset);
      return { sessions: matches.slice(offset, offset + Math.max(0, query.limit)), total: matches.length };
    },

    async listIdleSessions(query) {
      ensureOpen();
      const nowMs = clock().getTime();
      const fromMs =
        query.updatedFrom === undefined ? Number.NEGATIVE_INFINITY : Date.parse(query.updatedFrom);
      const beforeMs = Date.parse(query.updatedBefore);
      const after = query.after === undefined ? null : parseIdleCursor(query.after);
      const matches: { position: IdlePosition; session: IdleSession }[] = [];
      for (const [id, record] of sessions) {
        const state = record.state;
        const updatedMs = Date.parse(state.updatedAt);
        if (isExpired(record.expiresAtMs, nowMs) || updatedMs < fromMs || updatedMs >= beforeMs) continue;
        if (query.tenantId !== undefined && state.tenantId !== query.tenantId) continue;
        const position: IdlePosition = [updatedMs, id];
        if (after && compareIdlePositions(position, after) <= 0) continue;
        matches.push({
          position,
          session: {
            ...copyKey(state),
            createdAt: state.createdAt,
            updatedAt: state.updatedAt,
            lastSeq: state.lastSeq,
          },
        });
      }
      matches.sort((left, right) => compareIdlePositions(left.position, right.position));
      const page = matches.slice(0, Math.max(0, query.limit));
      const last = page.at(-1);
      return {
        sessions: page.map((match) => match.session),
        cursor: last && matches.length > page.length ? JSON.stringify(last.position) : null,
      };
    },

    async deleteExpired() {
      ensureOpen();
      const nowMs = clock().getTime();
      let deleted = 0;
      for (const [id, record] of sessions) {
        if (!isExpired(record.expiresAtMs, nowMs)) continue;
        sessions.delete(id);
        deleted += 1;
      }
      return deleted;
    },

    async close() {
      closed = true;
      sessions.clear();
      await memories.close();
    },
  };
  return store;
}
