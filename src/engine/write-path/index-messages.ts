import type { SessionKey } from '../../core/schemas/session.js';
import type { EngramStore } from '../../stores/engram-store.js';
import type { InsertResult } from '../../stores/memory-record-store.js';
import type { LongTermMemory } from '../long-term/long-term-memory.js';
import { messageRecords, sessionScopeDigest } from './index-messages-records.js';
import type { MessageIndexState } from './index-messages-state.js';

/** Long-term memory takes at most this many records per create. */
const MAX_CREATE_BATCH = 1_000;

export interface MessageIndexOptions {
  store: EngramStore;
  memories: LongTermMemory;
  state: MessageIndexState;
  /** Messages read per batch. */
  batchMessages: number;
}

export interface MessageIndexOutcome {
  status: 'indexed' | 'absent' | 'up-to-date';
  /** Message records created. */
  created: number;
  /** Messages stored as repeats of an identical earlier record. */
  repeats: number;
  /** Records that already existed (a message sent again by a PUT, or a retried batch). */
  existing: number;
  cursor: number;
}

/**
 * Indexes a session's messages after its index cursor into long-term memory as `message` records
 * (`"<role>: <content>"`, created at the message's time, metadata role/seq/messageId), a batch at
 * a time, then moves the cursor by compare-and-set. Idempotent: record ids derive from the message
 * id, so a retried batch or a message sent again creates nothing; a message whose text equals an
 * earlier one (which hash deduplication keeps once) is recorded as a repeat of that record.
 */
export function createMessageIndex(options: MessageIndexOptions) {
  const { store, memories, state, batchMessages } = options;

  return async function indexMessages(
    key: SessionKey,
    bounds: { createdAt?: string; signal?: AbortSignal } = {},
  ): Promise<MessageIndexOutcome> {
    const outcome: MessageIndexOutcome = {
      status: 'up-to-date',
      created: 0,
      repeats: 0,
      existing: 0,
      cursor: 0,
    };
    // Read before the session: a DELETE after this point (it moves the generation once the session
    // is gone) leaves whatever this job writes in a generation that is never rebuilt.
    const generation = await state.generation(key);
    const session = await store.getSession(key);
    // A job for an earlier incarnation (deleted or expired since) has nothing left to do.
    if (!session || (bounds.createdAt !== undefined && bounds.createdAt !== session.createdAt)) {
      return { ...outcome, status: 'absent' };
    }
    const incarnation = { ...key, createdAt: session.createdAt };
    const scope = sessionScopeDigest(key);
    let cursor = await state.readCursor(incarnation);
    outcome.cursor = cursor.seq;
    while (cursor.seq < session.lastSeq) {
      bounds.signal?.throwIfAborted();
      const messages = await store.readMessages(key, {
        order: 'oldest-first',
        afterSeq: cursor.seq,
        limit: batchMessages,
      });
      const newest = messages.at(-1);
      if (!newest) break;
      const records = messages.flatMap((message) => messageRecords(key, generation, message));
      const known = new Set(
        records.length === 0
          ? []
          : (
              await store.memories.getMemories(
                key.tenantId,
                records.map((record) => record.id),
              )
            ).map((record) => record.id),
      );
      const fresh = records.filter((record) => !known.has(record.id));
      outcome.existing += records.length - fresh.length;
      if (fresh.length > 0) {
        const duplicates: InsertResult['duplicates'] = [];
        for (let start = 0; start < fresh.length; start += MAX_CREATE_BATCH) {
          const result = await memories.create(key.tenantId, fresh.slice(start, start + MAX_CREATE_BATCH));
          outcome.created += result.inserted.length;
          duplicates.push(...result.duplicates);
        }
        const byId = new Map(fresh.map((record) => [record.id, record]));
        for (const { requestedId, existing } of duplicates) {
          const record = byId.get(requestedId);
          // Our own record, written by a concurrent job for the same session: nothing to add.
          if (!record || existing.id === requestedId) {
            outcome.existing++;
            continue;
          }
          const metadata = record.metadata as Record<string, unknown>;
          await state.putRepeat(key.tenantId, scope, requestedId, {
            recordId: existing.id,
            createdAt: record.createdAt ?? existing.createdAt,
            messageId: String(metadata.messageId),
            role: String(metadata.role),
            seq: Number(metadata.seq),
            part: Number(metadata.part),
            parts: Number(metadata.parts),
            generation,
          });
          outcome.repeats++;
        }
      }
      await state.moveCursor(incarnation, newest.seq, cursor.version);
      cursor = { seq: newest.seq, version: cursor.version + 1 };
      outcome.status = 'indexed';
      outcome.cursor = cursor.seq;
    }
    return outcome;
  };
}

export type MessageIndex = ReturnType<typeof createMessageIndex>;
