import type { JsonObject } from '../../core/schemas/json.js';
import type { MemoryRecordInput } from '../../core/schemas/memory-record.js';
import type { StoredMessage } from '../../core/schemas/message.js';
import type { MemoryStrategy, SessionKey } from '../../core/schemas/session.js';
import type { SessionStore } from '../../stores/session-store.js';
import type { LongTermMemory } from '../long-term/long-term-memory.js';
import type { SessionCursors } from './session-cursors.js';

/** What an extractor gets: the session's strategy and the messages not yet extracted, oldest first. */
export interface MemoryExtractionRequest {
  strategy: MemoryStrategy;
  messages: readonly StoredMessage[];
  now: Date;
  session: SessionKey;
  signal?: AbortSignal;
}

/**
 * Turns messages into long-term memories (an LLM call). Scope fields left out of a result are the
 * session's (namespace, user, session id). Throws to fail the job: nothing is stored then.
 */
export type MemoryExtractor = (request: MemoryExtractionRequest) => Promise<MemoryRecordInput[]>;

export interface SessionMemoryExtractionOptions {
  store: SessionStore;
  memories: LongTermMemory;
  cursors: SessionCursors;
  extractor: MemoryExtractor;
  clock: () => Date;
  batchMessages: number;
}

export interface ExtractionOutcome {
  status: 'extracted' | 'absent' | 'up-to-date';
  /** Messages sent to the model. */
  messages: number;
  created: string[];
  duplicates: number;
  cursor: number;
}

/** Long-term memory takes at most this many records per create. */
const MAX_CREATE_BATCH = 1_000;

/**
 * Extracts long-term memories from a session's messages after its extraction cursor, a batch at a
 * time: the model is called, its memories are created (hash dedup applies), then the cursor moves
 * by compare-and-set. A failed call leaves the cursor and long-term memory as they were for that
 * batch. `throughSeq` bounds the work (the summarizer extracts just the messages leaving).
 */
export function createSessionMemoryExtraction(options: SessionMemoryExtractionOptions) {
  const { store, memories, cursors, extractor, clock, batchMessages } = options;

  return async function extract(
    key: SessionKey,
    bounds: {
      createdAt?: string;
      throughSeq?: number;
      signal?: AbortSignal;
      /** Throws when this worker no longer holds the job (JobContext.confirmLease). */
      confirmLease?: () => Promise<void>;
    } = {},
  ): Promise<ExtractionOutcome> {
    const outcome: ExtractionOutcome = {
      status: 'up-to-date',
      messages: 0,
      created: [],
      duplicates: 0,
      cursor: 0,
    };
    const state = await store.getSession(key);
    // A job for an earlier incarnation of the session has nothing left to do.
    if (!state || (bounds.createdAt !== undefined && bounds.createdAt !== state.createdAt)) {
      return { ...outcome, status: 'absent' };
    }
    const session = { ...key, createdAt: state.createdAt };
    const last = Math.min(state.lastSeq, bounds.throughSeq ?? state.lastSeq);
    let cursor = await cursors.read(session);
    outcome.cursor = cursor.seq;
    /** Creates the batch's memories, then moves the cursor past it. */
    const commit = async (inputs: MemoryRecordInput[], throughSeq: number) => {
      for (let start = 0; start < inputs.length; start += MAX_CREATE_BATCH) {
        const { inserted, duplicates } = await memories.create(
          key.tenantId,
          inputs.slice(start, start + MAX_CREATE_BATCH),
          { writtenBy: 'llm' },
        );
        outcome.created.push(...inserted.map((record) => record.id));
        outcome.duplicates += duplicates.length;
      }
      await cursors.move(session, throughSeq, cursor.version);
      cursor = { seq: throughSeq, version: cursor.version + 1 };
      outcome.status = 'extracted';
      outcome.cursor = cursor.seq;
    };
    if (cursor.staged) {
      // An earlier attempt died between its writes: replay its answer (hash dedup makes the memories
      // it already created no-ops) instead of asking the model again, whose new wording dedup misses.
      await bounds.confirmLease?.();
      await commit(cursor.staged.items as unknown as MemoryRecordInput[], cursor.staged.throughSeq);
    }
    while (cursor.seq < last) {
      bounds.signal?.throwIfAborted();
      const messages = (
        await store.readMessages(key, { order: 'oldest-first', afterSeq: cursor.seq, limit: batchMessages })
      ).filter((message) => message.seq <= last);
      const newest = messages.at(-1);
      if (!newest) break;
      const extracted = await extractor({
        strategy: state.longTermMemoryStrategy,
        messages,
        now: clock(),
        session: key,
        ...(bounds.signal ? { signal: bounds.signal } : {}),
      });
      const inputs = extracted.map((memory) => ({
        namespace: key.namespace,
        userId: key.userId,
        sessionId: key.sessionId,
        ...memory,
      }));
      // The model may have taken long: a worker that lost the job meanwhile must not write what
      // the worker now holding it writes too (two answers are rarely identical, so dedup misses).
      await bounds.confirmLease?.();
      if (inputs.length > 0) {
        // Written ahead, so that a crash before the cursor moves replays this answer (above).
        await cursors.stage(session, cursor, {
          throughSeq: newest.seq,
          items: inputs as unknown as JsonObject[],
        });
        cursor = { seq: cursor.seq, version: cursor.version + 1 };
      }
      await commit(inputs, newest.seq);
      outcome.messages += messages.length;
    }
    return outcome;
  };
}

export type SessionMemoryExtraction = ReturnType<typeof createSessionMemoryExtraction>;
