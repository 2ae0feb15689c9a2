import { z } from 'zod';
import { NotFoundError, parseWith, ValidationError, VersionConflictError } from '../../core/errors.js';
import { createEventLoopSlicer } from '../../core/event-loop-slicer.js';
import { MAX_BUDGET_TOKENS } from '../../core/schemas/agent.js';
import { type JsonObject, jsonObjectSchema } from '../../core/schemas/json.js';
import type { MessageInput, NewMessage, StoredMessage } from '../../core/schemas/message.js';
import {
  MAX_TTL_SECONDS,
  type PendingMemoryInput,
  pendingMemorySchema,
  type SessionInput,
  type SessionState,
  type SessionSummary,
} from '../../core/schemas/session.js';
import type { Encoding } from '../../core/tokens/model-registry.js';
import type { TokenCounter } from '../../core/tokens/token-counter.js';
import type { SessionStore } from '../../stores/session-store.js';
import { prepareMessages } from './prepare-messages.js';
import {
  completeMemories,
  decodeMessages,
  type PreparedSessionWrite,
  prepareSessionWrite,
} from './prepare-session-write.js';
import { type SessionRef, toSessionKey } from './session-ref.js';

/** A session with its messages (oldest first). */
export type Session = SessionState & { messages: StoredMessage[] };

const writeOptionsSchema = z.object({
  expectedVersion: z.number().int().nonnegative().optional(),
  /** The window of the model the write is for: background summarization measures against it. */
  contextWindow: z.number().int().min(1).max(MAX_BUDGET_TOKENS).optional(),
});
const appendOptionsSchema = writeOptionsSchema.extend({
  ttlSeconds: z.number().int().positive().max(MAX_TTL_SECONDS).nullable().optional(),
});
const getOptionsSchema = z.object({
  recentMessagesLimit: z.number().int().positive().optional(),
  includeSummarized: z.boolean().default(false),
});
const listQuerySchema = z.object({
  tenantId: z.string().min(1).max(256).default('default'),
  namespace: z.string().max(256).nullable().optional(),
  userId: z.string().max(256).nullable().optional(),
  sessionId: z.string().min(1).max(256).optional(),
  limit: z.number().int().min(1).max(1_000).default(20),
  offset: z.number().int().nonnegative().default(0),
});
const patchSchema = z.object({
  data: jsonObjectSchema.optional(),
  context: z.string().max(1_000_000).nullable().optional(),
  memories: z.array(pendingMemorySchema).max(10_000).optional(),
  ttlSeconds: z.number().int().positive().max(MAX_TTL_SECONDS).nullable().optional(),
});

const summarySchema = z.object({
  context: z.string().trim().min(1, 'A summary cannot be empty').max(1_000_000),
  throughSeq: z.number().int().positive(),
  expectedThroughSeq: z.number().int().nonnegative(),
  expectedContext: z.string().nullable().optional(),
  expectedCreatedAt: z.string().optional(),
});

const idListSchema = z.array(z.string().min(1).max(128)).max(1_000).default([]);
const workingSetChangesSchema = z
  .object({ pin: idListSchema, unpin: idListSchema, remove: idListSchema, restore: idListSchema })
  .strict();
export type WorkingSetChanges = z.input<typeof workingSetChangesSchema>;

/** How often a working-set update is retried when another write got in between. */
const MAX_WORKING_SET_RETRIES = 8;

export interface SessionPatchInput {
  /** RFC 7386 JSON merge patch applied to `data`. */
  data?: JsonObject;
  context?: string | null;
  memories?: PendingMemoryInput[];
  ttlSeconds?: number | null;
}

/** Session working memory operations. Every input is validated; a rejected call changes nothing. */
export interface SessionOperations {
  /**
   * The session with its working-memory messages: those after the summary mark (the summary in
   * `context` stands for the older ones), or the whole durable log with `includeSummarized`.
   */
  get(
    ref: SessionRef,
    options?: { recentMessagesLimit?: number; includeSummarized?: boolean },
  ): Promise<Session | null>;
  /** `contextWindow`: the window of the model this write is for (summarization measures against it). */
  put(
    ref: SessionRef,
    input: SessionInput,
    options?: { expectedVersion?: number; contextWindow?: number },
  ): Promise<Session>;
  /**
   * What a thread preparing a put's messages for `putPrepared` needs: the encoding this engine
   * counts tokens in, and the time by its clock.
   */
  preparation(): { encoding: Encoding; now: Date };
  /**
   * `put` of a write validated and prepared in another thread (`prepareSessionWrite`, then
   * `encodeMessages`: a large PUT's body, so that the calling thread never holds its 100,000
   * message objects). Answers the session's state and how many messages it now holds; the write
   * path sees it as a put.
   */
  putPrepared(
    ref: SessionRef,
    prepared: PreparedSessionWrite,
    options?: { expectedVersion?: number; contextWindow?: number },
  ): Promise<{ session: SessionState; messageCount: number }>;
  append(
    ref: SessionRef,
    messages: MessageInput[],
    options?: { expectedVersion?: number; ttlSeconds?: number | null; contextWindow?: number },
  ): Promise<{ session: SessionState; messages: StoredMessage[] }>;
  patch(
    ref: SessionRef,
    patch: SessionPatchInput,
    options?: { expectedVersion?: number },
  ): Promise<SessionState>;
  /**
   * Pins memories to the session's context (always included) or removes them (never included);
   * `unpin` and `restore` undo. Concurrent edits are merged, never lost (optimistic retry).
   */
  updateWorkingSet(ref: SessionRef, changes: WorkingSetChanges): Promise<SessionState>;
  /**
   * Records a summary covering the messages through `throughSeq`, if the summary mark is still at
   * `expectedThroughSeq` (else VersionConflictError; appends meanwhile never conflict). The
   * messages stay in the durable log. An empty summary is rejected: it never replaces a real one.
   */
  recordSummary(ref: SessionRef, summary: z.input<typeof summarySchema>): Promise<SessionState>;
  delete(ref: SessionRef): Promise<boolean>;
  list(query?: z.input<typeof listQuerySchema>): Promise<{ sessions: SessionSummary[]; total: number }>;
}

export function createSessionOperations(
  store: SessionStore,
  counter: TokenCounter,
  clock: () => Date,
): SessionOperations {
  return {
    async get(ref, options = {}) {
      const key = toSessionKey(ref);
      const { recentMessagesLimit, includeSummarized } = parseWith(getOptionsSchema, options, 'get options');
      const state = await store.getSession(key);
      if (!state) return null;
      const newestFirst = recentMessagesLimit !== undefined;
      const messages = await store.readMessages(key, {
        order: newestFirst ? 'newest-first' : 'oldest-first',
        ...(newestFirst ? { limit: recentMessagesLimit } : {}),
        ...(includeSummarized ? {} : { afterSeq: state.summarized.throughSeq }),
      });
      return { ...state, messages: newestFirst ? messages.reverse() : messages };
    },

    async put(ref, input, options = {}) {
      const key = toSessionKey(ref);
      const { messages, ...write } = await prepareSessionWrite(input, counter, clock());
      const { expectedVersion } = parseWith(writeOptionsSchema, options, 'write options');
      const state = await store.putSession(
        key,
        { messages, ...write },
        expectedVersion === undefined ? {} : { expectedVersion },
      );
      // A replace numbers its messages so that the last one is `lastSeq`: no need to read them back.
      // The prepared messages are this call's own (every driver copies or serializes what it
      // stores), so they take their seq in place: 100,000 copies would each be copied again by
      // the garbage collector, in pauses of the event loop. Numbered in slices.
      const firstSeq = state.lastSeq - messages.length + 1;
      const slicer = createEventLoopSlicer();
      const stored = messages as StoredMessage[];
      for (const [index, message] of stored.entries()) {
        message.seq = firstSeq + index;
        if (index % 1_024 === 1_023) await slicer.pause();
      }
      return { ...state, messages: stored };
    },

    preparation() {
      return { encoding: counter.encoding, now: clock() };
    },

    async putPrepared(ref, prepared, options = {}) {
      const key = toSessionKey(ref);
      if (prepared.encoding !== counter.encoding) {
        throw new ValidationError(
          `Messages were prepared for ${prepared.encoding} tokens; this engine counts ${counter.encoding}`,
        );
      }
      const { expectedVersion } = parseWith(writeOptionsSchema, options, 'write options');
      // A store that decodes in its own thread gets the encoded array as it came (see
      // `StoreCapabilities.encodedMessages`); another one gets the messages, decoded in slices.
      const messages = store.capabilities.encodedMessages
        ? (prepared.messages.items as NewMessage[])
        : await decodeMessages(prepared.messages);
      const session = await store.putSession(
        key,
        { ...prepared.write, messages },
        expectedVersion === undefined ? {} : { expectedVersion },
      );
      return { session, messageCount: prepared.messages.count };
    },

    async append(ref, messages, options = {}) {
      const key = toSessionKey(ref);
      const parsedOptions = parseWith(appendOptionsSchema, options, 'append options');
      const prepared = await prepareMessages(messages, counter, clock());
      const { contextWindow: _window, ...storeOptions } = parsedOptions;
      return store.appendMessages(key, prepared, storeOptions);
    },

    async patch(ref, patch, options = {}) {
      const key = toSessionKey(ref);
      const parsed = parseWith(patchSchema, patch, 'session patch');
      const { expectedVersion } = parseWith(writeOptionsSchema, options, 'write options');
      return store.patchSession(
        key,
        {
          ...(parsed.data !== undefined ? { dataPatch: parsed.data } : {}),
          ...(parsed.context !== undefined ? { context: parsed.context } : {}),
          ...(parsed.memories !== undefined ? { memories: completeMemories(parsed.memories, clock()) } : {}),
          ...(parsed.ttlSeconds !== undefined ? { ttlSeconds: parsed.ttlSeconds } : {}),
        },
        expectedVersion === undefined ? {} : { expectedVersion },
      );
    },

    async updateWorkingSet(ref, changes) {
      const key = toSessionKey(ref);
      const { pin, unpin, remove, restore } = parseWith(
        workingSetChangesSchema,
        changes,
        'working-set changes',
      );
      for (let attempt = 1; ; attempt++) {
        const current = await store.getSession(key);
        if (!current) throw new NotFoundError('Session', key.sessionId);
        const pinned = new Set(current.workingSet.pinned);
        const removed = new Set(current.workingSet.removed);
        // Pinning un-removes and removing un-pins: a memory is in at most one list.
        for (const id of pin) {
          pinned.add(id);
          removed.delete(id);
        }
        for (const id of remove) {
          removed.add(id);
          pinned.delete(id);
        }
        for (const id of unpin) pinned.delete(id);
        for (const id of restore) removed.delete(id);
        try {
          return await store.patchSession(
            key,
            { workingSet: { pinned: [...pinned], removed: [...removed] } },
            { expectedVersion: current.version },
          );
        } catch (error) {
          if (!(error instanceof VersionConflictError) || attempt >= MAX_WORKING_SET_RETRIES) throw error;
        }
      }
    },

    async recordSummary(ref, summary) {
      const key = toSessionKey(ref);
      // engram's own write: the TTL still counts from the caller's last write.
      return store.patchSession(key, {
        summary: parseWith(summarySchema, summary, 'summary'),
        keepExpiry: true,
      });
    },

    async delete(ref) {
      return store.deleteSession(toSessionKey(ref));
    },

    async list(query = {}) {
      const parsed = parseWith(listQuerySchema, query, 'session list query');
      return store.listSessions(parsed);
    },
  };
}
