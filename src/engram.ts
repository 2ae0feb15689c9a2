import { z } from 'zod';
import type { ContextTrace } from './core/assembly/context-trace.js';
import type { MemorySource } from './core/assembly/memory-source.js';
import { parseWith, ValidationError } from './core/errors.js';
import { resolveModel } from './core/tokens/model-registry.js';
import { loadTokenCounter } from './core/tokens/token-counter.js';
import { type AgentRegistry, createAgentRegistry } from './engine/access/agent-registry.js';
import { type ChatTurn, type ChatTurnRequest, createChatService } from './engine/chat/chat-turn.js';
import {
  type AssembleRequest,
  type AssembleResult,
  type ContextFormat,
  createTurnAssembler,
} from './engine/context/assemble-turn.js';
import { createTraceLog, type TraceLog } from './engine/context/trace-log.js';
import { createJobRunner, type JobRunner, type JobRunnerOptions } from './engine/jobs/job-runner.js';
import { createRetentionSweeper } from './engine/jobs/retention-sweeper.js';
import { createTaskProgressLog, type TaskProgressLog } from './engine/jobs/task-progress.js';
import type { EpisodeLog } from './engine/long-term/episode-log.js';
import { type KnowledgeService, withBackgroundIngest } from './engine/long-term/knowledge-ingest-job.js';
import type { LongTermMemory } from './engine/long-term/long-term-memory.js';
import { createLongTermServices } from './engine/long-term/long-term-services.js';
import type { ProcedureLibrary } from './engine/long-term/procedure-library.js';
import { createSummaryViews, type SummaryViews } from './engine/long-term/summary-views.js';
import { createSessionOperations, type SessionOperations } from './engine/sessions/session-operations.js';
import {
  createSessionReconstruction,
  withSessionReconstruction,
} from './engine/sessions/session-reconstruction.js';
import type { SessionRef } from './engine/sessions/session-ref.js';
import { createWritePath, type WritePath } from './engine/write-path/create-write-path.js';
import { createLlmSummaryWriter } from './engine/write-path/llm/llm-summary-writer.js';
import { createLlmMemoryExtractor } from './engine/write-path/llm-memory-extractor.js';
import {
  createSessionEnding,
  registerSessionEndHandlers,
  type SessionEnding,
} from './engine/write-path/session-end.js';
import { createInactivitySweeper } from './engine/write-path/session-end-sweeper.js';
import type { MemoryExtractor } from './engine/write-path/session-memory-extraction.js';
import { withWriteTriggers } from './engine/write-path/with-write-triggers.js';
import type { WritePathSettingsInput } from './engine/write-path/write-path-settings.js';
import { withEmbeddingCache } from './providers/embeddings/cached-embedding-provider.js';
import type { EmbeddingProvider } from './providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from './providers/embeddings/static-embedding-provider.js';
import { type CircuitBreakerOptions, withCircuitBreaker } from './providers/llm/circuit-breaker.js';
import type { LlmProvider } from './providers/llm/llm-provider.js';
import type { EngramStore } from './stores/engram-store.js';
import { createSqliteStore } from './stores/sqlite/sqlite-store.js';

export type {
  AssembleRequest,
  AssembleResult,
  ContextFormat,
  FormattedContext,
} from './engine/context/assemble-turn.js';

/** Options of createEngram. Every field is optional: the default is the embedded SQLite file. */
export interface EngramOptions {
  /** Where sessions and memories live. Default: a SQLite file at `./data/engram.db`. */
  store?: EngramStore;
  /** Turns text into vectors. Default: the offline static word vectors (no network, no key). */
  embedder?: EmbeddingProvider;
  /** Extra retrievers consulted on every assembly, after the built-in ones. */
  sources?: MemorySource[];
  /** Set false to leave out the built-in procedural, semantic, knowledge and episodic sources. */
  defaultSources?: boolean;
  /** Model whose tokenizer counts messages at write time. Default `gpt-4o`. */
  model?: string;
  /** How often expired sessions are deleted; 0 disables the sweeper. Default 60 s. */
  sweepIntervalMs?: number;
  /** Called with every assembled context's trace (metadata only), e.g. for the inspector. */
  onTrace?: (trace: ContextTrace, session: SessionRef) => void;
  /** Traces kept per session in `store.documents` for the inspector (0: none). Default 50. */
  traceRetention?: number;
  /**
   * Errors of background work (the sweeper, trace writes, the job runner, re-embedding after a
   * model change, access statistics). Default: printed to stderr.
   */
  onBackgroundError?: (error: unknown) => void;
  /** A chat model for LLM-based features. Without one they are off and say so; the rest works. */
  llm?: LlmProvider;
  /**
   * The circuit breaker every call to `llm` goes through (circuit-breaker.ts): after repeated
   * provider failures calls pause and LLM jobs wait instead of burning attempts (docs/jobs.md).
   */
  llmCircuit?: CircuitBreakerOptions;
  /**
   * Ending sessions (episodes, procedure capture): a session with no write for `idleMs` (default
   * 30 min; 0: never by inactivity) is ended by a sweep every `sweepIntervalMs` (default: the TTL
   * sweeper's interval). See docs/episodes.md.
   */
  sessionEnd?: { idleMs?: number; sweepIntervalMs?: number; lookbackMs?: number };
  /** Settings of the background job runner (`engram.jobs`); it polls only once a handler is registered. */
  jobs?: Omit<JobRunnerOptions, 'store' | 'clock' | 'onError'>;
  /**
   * Background write path settings (docs/write-path.md); `onNotice` hears once what is off, and
   * what a session end skipped (no user, no LLM to capture a procedure); default printed.
   */
  writePath?: WritePathSettingsInput & {
    onNotice?: (message: string) => void;
    /** Replaces the LLM extraction (default: none without an LLM). */
    extractor?: MemoryExtractor;
  };
  clock?: () => Date;
}

/** An engram instance: session working memory plus per-turn context assembly. */
export interface Engram {
  readonly store: EngramStore;
  /** Session working memory, and `end` (episode and procedure capture, as a background job). */
  readonly sessions: SessionOperations & SessionEnding;
  /** Long-term memories: create, edit (versions), search (hybrid), working set. */
  readonly memories: LongTermMemory;
  /** Knowledge documents per agent; large ones can be ingested as a background job. */
  readonly knowledge: KnowledgeService;
  /** Episodes: summaries of past sessions per user. */
  readonly episodes: EpisodeLog;
  /** Procedures: proposed, approved, matched. */
  readonly procedures: ProcedureLibrary;
  /** Agents (system prompt + memory config) stored per tenant. */
  readonly agents: AgentRegistry;
  /** Every assembled context's trace, per session, metadata only (the Context Inspector's data). */
  readonly traces: TraceLog;
  /** The configured chat model, or null when LLM-based features are off. */
  readonly llm: LlmProvider | null;
  /** Durable background jobs (`store.jobs`): register handlers, enqueue, read status. */
  readonly jobs: JobRunner;
  /** Progress of long background jobs (a large document's ingest), as `GET /v1/tasks/{id}` shows it. */
  readonly taskProgress: TaskProgressLog;
  /** What every session write enqueues (summary, promotion, extraction); add triggers here. */
  readonly writePath: WritePath;
  /** Summary views: LLM summaries of long-term memory per group, full runs as jobs (AMS §4.15). */
  readonly summaryViews: SummaryViews;
  /**
   * Assembles one turn's context under the agent's budget; `messages` is typed by `format`
   * (`OpenAIMessage[]` by default, `AnthropicContext`, or neutral `ContextMessage[]`).
   */
  assemble<F extends ContextFormat = 'openai'>(request: AssembleRequest<F>): Promise<AssembleResult<F>>;
  /**
   * One conversation turn (docs/chat.md): assembles the context, streams the agent's model, then
   * appends the user message and the answer in one append. Resolves once the answer has started;
   * iterate the turn for `delta` events and `done`, or await `turn.result`.
   */
  chat(request: ChatTurnRequest): Promise<ChatTurn>;
  /** Aborts chat turns in flight, stops the sweeper and the job runner, then closes the store. */
  close(): Promise<void>;
}

/**
 * Creates an engram instance. With no options it stores sessions in `./data/engram.db`
 * (embedded SQLite, no network, no API key).
 */
export async function createEngram(options: EngramOptions = {}): Promise<Engram> {
  refuseUnknownOptions(options);
  const clock = options.clock ?? (() => new Date());
  if (options.store) return wireEngram(options, options.store, clock);
  // The default store is ours: a refused option closes it again instead of leaving it open.
  const store = await createSqliteStore({ path: './data/engram.db', clock });
  try {
    return await wireEngram(options, store, clock);
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

/** Every option of createEngram (the Record makes the compiler keep it complete). */
const OPTION_NAMES: Record<keyof EngramOptions, true> = {
  store: true,
  embedder: true,
  sources: true,
  defaultSources: true,
  model: true,
  sweepIntervalMs: true,
  onTrace: true,
  traceRetention: true,
  onBackgroundError: true,
  llm: true,
  llmCircuit: true,
  sessionEnd: true,
  jobs: true,
  writePath: true,
  clock: true,
};

/** A misspelt option (`traceRetension`) is refused, not ignored: JavaScript callers get no type check. */
function refuseUnknownOptions(options: EngramOptions): void {
  const unknown = Object.keys(options).filter((key) => !Object.hasOwn(OPTION_NAMES, key));
  if (unknown.length === 0) return;
  const shown = unknown.slice(0, 5).map((key) => `"${key.length > 64 ? `${key.slice(0, 64)}…` : key}"`);
  throw new ValidationError(
    `Unknown createEngram option ${shown.join(', ')} (known: ${Object.keys(OPTION_NAMES).join(', ')})`,
    unknown.slice(0, 5).map((key) => ({ path: [key.slice(0, 64)], message: 'Unknown option' })),
  );
}

/** Builds the instance over `store`: the services, the write path, the sweepers, in that order. */
async function wireEngram(options: EngramOptions, store: EngramStore, clock: () => Date): Promise<Engram> {
  const writeModel = resolveModel(options.model ?? 'gpt-4o');
  const writeCounter = await loadTokenCounter(writeModel.encoding);
  const embedder = withEmbeddingCache(options.embedder ?? (await createStaticEmbeddingProvider()));
  const reportError =
    options.onBackgroundError ?? ((error) => console.error('engram: background error', error));
  const longTerm = createLongTermServices(store.memories, embedder, writeCounter, clock, reportError);
  const sources = [...(options.defaultSources === false ? [] : longTerm.sources), ...(options.sources ?? [])];
  const plainSessions = createSessionOperations(store, writeCounter, clock);
  const agents = createAgentRegistry(store.documents);
  const traces = createTraceLog(store.documents, clock, {
    ...(options.traceRetention === undefined ? {} : { retention: options.traceRetention }),
    onError: reportError,
  });
  const jobs = createJobRunner({ ...options.jobs, store: store.jobs, clock, onError: reportError });
  const { onNotice, extractor, ...writePathSettings } = options.writePath ?? {};
  const llm = options.llm ? withCircuitBreaker(options.llm, options.llmCircuit) : undefined;
  const memoryExtractor = extractor ?? (llm ? createLlmMemoryExtractor(llm, longTerm.memories) : undefined);
  const writePath = createWritePath({
    store,
    sessions: plainSessions,
    memories: longTerm.memories,
    jobs,
    clock,
    contextWindow: writeModel.contextWindow,
    settings: writePathSettings,
    ...(memoryExtractor ? { extractor: memoryExtractor } : {}),
    ...(llm ? { summaryWriter: createLlmSummaryWriter(llm), llmReady: llm.breaker.allows } : {}),
    onError: reportError,
    ...(onNotice ? { onNotice } : {}),
  });
  // Started once every setting has been validated, so a refused option leaves nothing running.
  const sweepIntervalMs = parseWith(
    z.number().min(0).default(60_000),
    options.sweepIntervalMs,
    'sweepIntervalMs',
  );
  const retentionDays = options.writePath?.retentionDays ?? 30;
  const sweepRetention =
    retentionDays > 0
      ? createRetentionSweeper({ store, clock, retentionMs: retentionDays * 86_400_000 })
      : null;
  const sweeper =
    sweepIntervalMs > 0
      ? setInterval(() => {
          store.deleteExpired().catch(reportError);
          sweepRetention?.().catch(reportError);
        }, sweepIntervalMs).unref()
      : undefined;
  const triggered = withWriteTriggers(plainSessions, writePath);
  // With messages indexed, a missing session is rebuilt from them on read (docs/write-path.md).
  const sessions = writePath.messageIndex
    ? withSessionReconstruction(
        triggered,
        createSessionReconstruction({ memories: longTerm.memories, state: writePath.messageIndex.state }),
        writePath.messageIndex.state,
      )
    : triggered;
  const summaryViews = createSummaryViews({
    documents: store.documents,
    memories: longTerm.memories,
    llm: llm ?? null,
    ...(llm ? { llmReady: llm.breaker.allows } : {}),
    jobs,
    clock,
  });
  const taskProgress = createTaskProgressLog(store.documents);
  const knowledge = withBackgroundIngest(longTerm.knowledge, jobs, taskProgress, store.documents);
  jobs.start();
  registerSessionEndHandlers(jobs, {
    store,
    ...longTerm,
    traces,
    llm: llm ?? null,
    ...(llm ? { llmReady: llm.breaker.allows } : {}),
    clock,
    // What a session end skipped (no user, no LLM for capture) goes where the write path's notices go.
    ...(onNotice ? { log: onNotice } : {}),
  });
  const idleMs = options.sessionEnd?.idleMs ?? 30 * 60_000;
  const inactivity = createInactivitySweeper({
    store,
    jobs,
    clock,
    idleMs,
    intervalMs: idleMs > 0 ? (options.sessionEnd?.sweepIntervalMs ?? sweepIntervalMs) : 0,
    ...(options.sessionEnd?.lookbackMs === undefined ? {} : { lookbackMs: options.sessionEnd.lookbackMs }),
    onError: reportError,
  });
  inactivity.start();

  const assemble = createTurnAssembler({
    store,
    sources,
    traces,
    reportError,
    ...(options.onTrace ? { onTrace: options.onTrace } : {}),
  });

  const chat = createChatService({ llm: llm ?? null, agents, sessions, assemble, clock });

  return {
    store,
    sessions: { ...sessions, ...createSessionEnding(store, jobs, agents) },
    memories: longTerm.memories,
    knowledge,
    episodes: longTerm.episodes,
    procedures: longTerm.procedures,
    agents,
    traces,
    llm: llm ?? null,
    jobs,
    taskProgress,
    writePath,
    summaryViews,
    assemble,
    chat: chat.chat,
    async close() {
      if (sweeper) clearInterval(sweeper);
      await inactivity.stop();
      await chat.close();
      writePath.close();
      await jobs.close();
      // Queued diagnostics and statistics are written before the store goes.
      await traces.close();
      await longTerm.memories.close();
      await store.close();
    },
  };
}
