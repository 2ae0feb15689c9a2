import { createHash } from 'node:crypto';
import { parseWith } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { SessionKey, SessionState } from '../../core/schemas/session.js';
import type { EngramStore } from '../../stores/engram-store.js';
import type { Job } from '../../stores/job-store.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { LongTermMemory } from '../long-term/long-term-memory.js';
import { createMemoryPromoter, type MemoryPromoter } from '../long-term/memory-promoter.js';
import type { SessionOperations } from '../sessions/session-operations.js';
import { toSessionKey } from '../sessions/session-ref.js';
import {
  createSessionSummarizer,
  type SessionSummarizer,
  type SummaryWriter,
} from '../sessions/session-summarizer.js';
import { createMessageIndex, type MessageIndex } from './index-messages.js';
import { createMessageIndexState, type MessageIndexState } from './index-messages-state.js';
import { createSessionCursors, EXTRACTION_CURSORS } from './session-cursors.js';
import { sessionDigest, sessionJobPayload, sessionOfJob } from './session-job-payload.js';
import {
  createSessionMemoryExtraction,
  type MemoryExtractor,
  type SessionMemoryExtraction,
} from './session-memory-extraction.js';
import {
  type WritePathSettings,
  type WritePathSettingsInput,
  writePathSettingsSchema,
} from './write-path-settings.js';

/** Job types of the write path. */
export const WRITE_PATH_JOBS = {
  summarize: 'summarize-session',
  promote: 'promote-memories',
  extract: 'extract-memories',
  indexMessages: 'index-messages',
} as const;

/** Messages read per batch by the message index job. */
const INDEX_BATCH_MESSAGES = 200;

export const LLM_OFF_NOTICE =
  'LLM not configured: extraction, LLM summaries and procedure capture are off; summaries are extractive';

/** What a write changed, as far as the triggers care. */
export interface WriteChange {
  /** The write added messages (a put with messages, an append). */
  messagesAdded: boolean;
  /** The context window of the model the write named (AMS `model_name`/`context_window_max`). */
  contextWindow?: number | undefined;
}

/** Enqueues `type` for the session once per `key` (see `createWritePath`). */
export type EnqueueForSession = (
  state: SessionState,
  type: string,
  key: string,
  options?: { runAt?: Date; staleSuffix?: string; payload?: JsonObject; coalesceKey?: string },
) => Promise<Job>;

/** Runs after every session write; it only enqueues (never calls a model). */
export type WriteTrigger = (
  state: SessionState,
  change: WriteChange,
  enqueue: EnqueueForSession,
) => Promise<void>;

export interface WritePathOptions {
  store: EngramStore;
  /** The session operations without hooks (the summarizer records its summary through them). */
  sessions: SessionOperations;
  memories: LongTermMemory;
  jobs: JobRunner;
  clock: () => Date;
  /** Window of the default model, used when the settings name none. */
  contextWindow: number;
  settings?: WritePathSettingsInput;
  /** Writes LLM summaries; absent = extractive summaries. */
  summaryWriter?: SummaryWriter;
  /** Extracts memories with an LLM; absent = no extraction jobs at all. */
  extractor?: MemoryExtractor;
  onError: (error: unknown) => void;
  /** Told once at start what is off (no LLM). */
  onNotice?: (message: string) => void;
  /**
   * Whether the LLM may be called now (its circuit breaker, circuit-breaker.ts): while false, LLM
   * summary and extraction jobs are not claimed, so they wait instead of burning attempts.
   */
  llmReady?: () => boolean;
}

export interface WritePath {
  readonly settings: WritePathSettings;
  readonly summarizer: SessionSummarizer;
  readonly promoter: MemoryPromoter;
  /** Null when no extractor (no LLM) is configured. */
  readonly extraction: SessionMemoryExtraction | null;
  /** The message index and its documents; null unless `indexMessages` is on. */
  readonly messageIndex: { index: MessageIndex; state: MessageIndexState } | null;
  /** Enqueues the work a write calls for. Never throws: failures are reported and retried later. */
  afterWrite(state: SessionState, change: WriteChange): Promise<void>;
  /** Adds a trigger run after every write (e.g. session end), beside the built-in ones. */
  addTrigger(trigger: WriteTrigger): void;
  /** Enqueues again now for the writes whose enqueue failed; resolves how many are still waiting. */
  catchUp(): Promise<number>;
  close(): void;
}

/** Writes whose enqueue failed, kept (bounded) until the catch-up succeeds. */
const MAX_WAITING_WRITES = 10_000;

const pendingDigest = (state: SessionState): string | null => {
  const pending = state.memories.filter((memory) => memory.persistedAt === null);
  if (pending.length === 0) return null;
  const parts = pending.map((memory) => [memory.id, memory.text]);
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
};

/**
 * The background write path: after every session write it enqueues (never runs) the summary when
 * the session passes its threshold, the promotion of pending memories, and a debounced LLM
 * extraction; it registers the handlers of those jobs on `jobs`. Idempotency keys name one piece
 * of work: repeated writes enqueue it once, and a key whose job already finished is followed by a
 * fresh key (the work is due again). Summary and extraction jobs also carry a per-session coalesce
 * key, so a session never has more than one of each pending (docs/jobs.md).
 */
export function createWritePath(options: WritePathOptions): WritePath {
  const { store, sessions, memories, jobs, clock, onError } = options;
  const settings = parseWith(writePathSettingsSchema, options.settings ?? {}, 'writePath settings');
  const summarizationPolicy = {
    contextWindow: settings.contextWindow ?? options.contextWindow,
    threshold: settings.summaryThreshold,
    keepRecent: settings.summaryKeepRecent,
  };
  const { extractor } = options;
  const extraction = extractor
    ? createSessionMemoryExtraction({
        store,
        memories,
        cursors: createSessionCursors(store.documents, EXTRACTION_CURSORS),
        extractor,
        clock,
        batchMessages: settings.extractionBatchMessages,
      })
    : null;
  const summarizer = createSessionSummarizer({
    store,
    sessions,
    policy: summarizationPolicy,
    ...(options.summaryWriter ? { writer: options.summaryWriter } : {}),
    // Messages leaving working memory are extracted first, so the summary never hides unread facts.
    ...(extraction
      ? {
          beforeSummarize: async (ref, throughSeq, job) => {
            await extraction(toSessionKey(ref), { throughSeq, ...job });
          },
        }
      : {}),
  });
  const promoter = createMemoryPromoter({ store, memories, clock });
  if (!extraction) options.onNotice?.(LLM_OFF_NOTICE);
  const messageIndex = settings.indexMessages
    ? (() => {
        const state = createMessageIndexState(store.documents);
        const index = createMessageIndex({ store, memories, state, batchMessages: INDEX_BATCH_MESSAGES });
        return { index, state };
      })()
    : null;

  const llmGate = options.llmReady ? { isReady: options.llmReady } : {};
  jobs.register(
    WRITE_PATH_JOBS.summarize,
    async (payload, { job, signal, confirmLease }) => {
      const window = typeof payload.contextWindow === 'number' ? payload.contextWindow : undefined;
      // The signal stops the model call when the runner closes; the lease check guards extraction.
      return {
        ...(await summarizer.summarize(sessionOfJob(payload, job), window, { signal, confirmLease })),
      };
    },
    options.summaryWriter ? llmGate : {},
  );
  jobs.register(WRITE_PATH_JOBS.promote, async (payload, { job }) => {
    const result = await promoter.promote(sessionOfJob(payload, job));
    return { created: result.created, versioned: result.versioned, unchanged: result.unchanged };
  });
  if (extraction) {
    jobs.register(
      WRITE_PATH_JOBS.extract,
      async (payload, { job, signal, confirmLease }) => {
        const { createdAt, ...ref } = sessionOfJob(payload, job);
        return { ...(await extraction(toSessionKey(ref), { createdAt, signal, confirmLease })) };
      },
      llmGate,
    );
  }

  if (messageIndex) {
    jobs.register(WRITE_PATH_JOBS.indexMessages, async (payload, { job, signal }) => {
      const { createdAt, ...ref } = sessionOfJob(payload, job);
      return { ...(await messageIndex.index(toSessionKey(ref), { createdAt, signal })) };
    });
  }

  const enqueue: EnqueueForSession = async (state, type, key, enqueueOptions = {}) => {
    const payload: JsonObject = { ...sessionJobPayload(state), ...enqueueOptions.payload };
    const runAt = {
      ...(enqueueOptions.runAt ? { runAt: enqueueOptions.runAt.toISOString() } : {}),
      ...(enqueueOptions.coalesceKey ? { coalesceKey: enqueueOptions.coalesceKey } : {}),
    };
    const job = await jobs.enqueue(state.tenantId, type, payload, { idempotencyKey: key, ...runAt });
    if (job.status !== 'succeeded' && job.status !== 'failed') return job;
    // The work this key named was done (or given up) earlier, and the write says it is due again.
    const suffix = enqueueOptions.staleSuffix ?? `v${state.version}`;
    return jobs.enqueue(state.tenantId, type, payload, { idempotencyKey: `${key}:${suffix}`, ...runAt });
  };

  const builtIn: WriteTrigger = async (state, change) => {
    const session = sessionDigest(state);
    // A write that names its model (AMS PUT with model_name) is summarized against that window.
    const window = change.contextWindow;
    if (summarizer.needsSummary(state, window)) {
      const sized = window === undefined ? '' : `:c${window}`;
      await enqueue(
        state,
        WRITE_PATH_JOBS.summarize,
        `summarize:${session}:${state.summarized.throughSeq}${sized}`,
        {
          staleSuffix: `s${state.lastSeq}`,
          // However many writes ask while one waits, a session has one pending summary job.
          coalesceKey: `summarize:${session}`,
          ...(window === undefined ? {} : { payload: { contextWindow: window } }),
        },
      );
    }
    const pending = pendingDigest(state);
    if (pending) await enqueue(state, WRITE_PATH_JOBS.promote, `promote:${session}:${pending}`);
    if (extraction && change.messagesAdded) {
      const now = clock().getTime();
      const debounce = settings.extractionDebounceMs;
      const window = debounce > 0 ? `w${Math.floor(now / debounce)}` : `s${state.lastSeq}`;
      await enqueue(state, WRITE_PATH_JOBS.extract, `extract:${session}:${window}`, {
        runAt: new Date(now + debounce),
        staleSuffix: `s${state.lastSeq}`,
        // One pending extraction per session: it reads from the cursor to the end when it runs.
        coalesceKey: `extract:${session}`,
      });
    }
    // One job per write that added messages; a job finding the cursor at the end does nothing.
    if (messageIndex && change.messagesAdded) {
      await enqueue(state, WRITE_PATH_JOBS.indexMessages, `index-messages:${session}:s${state.lastSeq}`);
    }
  };
  const triggers: WriteTrigger[] = [builtIn];
  const waiting = new Map<string, { key: SessionKey; change: WriteChange }>();

  async function runTriggers(state: SessionState, change: WriteChange): Promise<void> {
    const failures: unknown[] = [];
    for (const trigger of triggers) {
      await trigger(state, change, enqueue).catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw failures[0];
  }

  async function afterWrite(state: SessionState, change: WriteChange): Promise<void> {
    try {
      await runTriggers(state, change);
    } catch (error) {
      // The write itself succeeded; its jobs are enqueued again by the catch-up (or the next write).
      onError(error);
      const key = toKey(state);
      const id = JSON.stringify([key.tenantId, key.namespace, key.userId, key.sessionId]);
      const earlier = waiting.get(id);
      if (waiting.size < MAX_WAITING_WRITES || earlier) {
        // The window a write named sizes its summary: the catch-up must not fall back to the default.
        const contextWindow = change.contextWindow ?? earlier?.change.contextWindow;
        waiting.set(id, {
          key,
          change: {
            messagesAdded: change.messagesAdded || !!earlier?.change.messagesAdded,
            ...(contextWindow === undefined ? {} : { contextWindow }),
          },
        });
      }
    }
  }

  async function catchUp(): Promise<number> {
    for (const [id, { key, change }] of [...waiting]) {
      try {
        const state = await store.getSession(key);
        if (state) await runTriggers(state, change);
        waiting.delete(id);
      } catch (error) {
        onError(error);
      }
    }
    return waiting.size;
  }

  const timer =
    settings.catchUpIntervalMs > 0
      ? setInterval(() => {
          if (waiting.size > 0) catchUp().catch(onError);
        }, settings.catchUpIntervalMs).unref()
      : undefined;

  return {
    settings,
    summarizer,
    promoter,
    extraction,
    messageIndex,
    afterWrite,
    addTrigger: (trigger) => {
      triggers.push(trigger);
    },
    catchUp,
    close: () => {
      if (timer) clearInterval(timer);
    },
  };
}

const toKey = (ref: Pick<SessionKey, keyof SessionKey>): SessionKey => ({
  tenantId: ref.tenantId,
  namespace: ref.namespace,
  userId: ref.userId,
  sessionId: ref.sessionId,
});
