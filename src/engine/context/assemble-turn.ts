import { z } from 'zod';
import { type AssembledContext, assembleContextSteps } from '../../core/assembly/assemble-context.js';
import type { ContextMessage } from '../../core/assembly/context-message.js';
import type { ContextTrace } from '../../core/assembly/context-trace.js';
import { type MemorySource, retrievalLimit } from '../../core/assembly/memory-source.js';
import { runSources } from '../../core/assembly/run-sources.js';
import { historyMessageTokens } from '../../core/assembly/text-markers.js';
import { type AnthropicContext, toAnthropicMessages } from '../../core/assembly/to-anthropic-messages.js';
import { type OpenAIMessage, toOpenAIMessages } from '../../core/assembly/to-openai-messages.js';
import { parseWith } from '../../core/errors.js';
import { createEventLoopSlicer, drainInSlices } from '../../core/event-loop-slicer.js';
import { type AgentInput, agentSchema } from '../../core/schemas/agent.js';
import type { StoredMessage } from '../../core/schemas/message.js';
import { MAX_MESSAGE_CHARS } from '../../core/schemas/message.js';
import { memoizeCounter } from '../../core/tokens/memoize-counter.js';
import { resolveModel } from '../../core/tokens/model-registry.js';
import {
  countSteps,
  loadTokenCounter,
  messageCost,
  REPLY_PRIMING_TOKENS,
  type TokenCounter,
} from '../../core/tokens/token-counter.js';
import { searchQueryOf } from '../../retrieval/search-query-of.js';
import type { EngramStore } from '../../stores/engram-store.js';
import { readHistoryTail } from '../sessions/read-history-tail.js';
import { type SessionRef, toSessionKey } from '../sessions/session-ref.js';
import type { TraceLog } from './trace-log.js';

const assembleRequestSchema = z.object({
  // Checked, not trimmed: the model gets the message as sent (leading indentation of code included).
  message: z
    .string()
    .max(MAX_MESSAGE_CHARS)
    .refine((text) => /\S/.test(text), 'message cannot be empty'),
  format: z.enum(['openai', 'anthropic', 'neutral']).default('openai'),
  removedIds: z.array(z.string()).max(10_000).default([]),
  pinnedIds: z.array(z.string()).max(1_000).default([]),
});

/** One turn to assemble: `Engram.assemble`'s argument. */
/** The shapes a context is given in. */
export type ContextFormat = 'openai' | 'anthropic' | 'neutral';

/** The context's type in each format: `assemble`'s `messages` is typed by the format asked for. */
export interface FormattedContext {
  openai: OpenAIMessage[];
  anthropic: AnthropicContext;
  neutral: ContextMessage[];
}

export interface AssembleRequest<F extends ContextFormat = ContextFormat> {
  agent?: AgentInput;
  session: SessionRef;
  /** The current user message (not yet stored; append it after the turn if you keep it). */
  message: string;
  /** Default `openai`. */
  format?: F;
  /** Memory ids the user removed from this session's context. */
  removedIds?: string[];
  /** Memory ids the user pinned to this session's context. */
  pinnedIds?: string[];
  /**
   * Retrievers for this call only, consulted instead of the instance's (e.g. the results of a
   * search the caller already ran, as the AMS memory prompt does). Absent: the instance's sources.
   */
  sources?: MemorySource[];
  /**
   * A preview: the same assembly, but nothing is written (no trace recorded, no memory access
   * counted), so an operator can see what the next turn would get.
   */
  preview?: boolean;
}

export interface AssembleResult<F extends ContextFormat = ContextFormat> {
  /** The context in the requested format (OpenAI's when none is named). */
  messages: FormattedContext[F];
  /** Provider-neutral messages with their sections. */
  context: ContextMessage[];
  trace: ContextTrace;
}

/** What the turn assembler reads and where it reports. */
export interface TurnAssemblerOptions {
  store: EngramStore;
  /** The instance's memory sources (a request may bring its own). */
  sources: MemorySource[];
  traces: TraceLog;
  reportError: (error: unknown) => void;
  onTrace?: (trace: ContextTrace, session: SessionRef) => void;
}

/**
 * The per-turn assembly behind `Engram.assemble`: validates the request, reads the session and the
 * newest history that can fit while the memory sources run in parallel, assembles the six sections
 * under the budget (src/core) and queues the content-free trace.
 */
export function createTurnAssembler(
  options: TurnAssemblerOptions,
): <F extends ContextFormat = 'openai'>(request: AssembleRequest<F>) => Promise<AssembleResult<F>> {
  const { store, sources, traces, reportError, onTrace } = options;
  // One memoizing counter per encoding: system prompts are counted once, not every turn.
  const countersByEncoding = new Map<string, TokenCounter>();

  async function assemble(request: AssembleRequest): Promise<AssembleResult> {
    const started = performance.now();
    const agent = parseWith(agentSchema, request.agent ?? {}, 'agent');
    const { message, format, removedIds, pinnedIds } = parseWith(
      assembleRequestSchema,
      request,
      'assemble request',
    );
    const key = toSessionKey(request.session);
    // A known model, and a budget within its window: agentSchema has checked both.
    const model = resolveModel(agent.memory.model);
    const counter =
      countersByEncoding.get(model.encoding) ?? memoizeCounter(await loadTokenCounter(model.encoding));
    countersByEncoding.set(model.encoding, counter);
    // A message stored under another encoding is counted as the write path counted it (tool calls too).
    const costOf = (stored: StoredMessage) =>
      messageCost(historyMessageTokens(stored, model.encoding, counter).tokens, model);

    // The session's own curation joins the request's: pins always in, removals never.
    const session = await store.getSession(key);
    const pinned = [...new Set([...pinnedIds, ...(session?.workingSet.pinned ?? [])])];
    const removed = [...new Set([...removedIds, ...(session?.workingSet.removed ?? [])])];
    const retrieval = runSources(
      request.sources ?? sources,
      (source) => ({
        ...key,
        agentId: agent.id,
        // Fitted here too (searches fit it themselves): procedure matching embeds the query.
        query: searchQueryOf(message),
        pinnedIds: pinned,
        removedIds: removed,
        readOnly: request.preview === true,
        limit: retrievalLimit(source.section, agent.memory),
      }),
      agent.memory.sourceTimeoutMs,
    );

    // The mandatory parts, counted in slices (a message may be a megabyte) and handed to the
    // assembly. Nothing older than this many tokens of history can fit beside them.
    const pause = createEventLoopSlicer().pause;
    const counted = {
      systemPrompt: await drainInSlices(countSteps(counter, agent.systemPrompt), pause),
      currentMessage: await drainInSlices(countSteps(counter, message), pause),
    };
    const historyBound =
      agent.memory.maxWorkingMemoryTokens -
      agent.memory.reservedOutputTokens -
      REPLY_PRIMING_TOKENS -
      messageCost(counted.systemPrompt, model) -
      messageCost(counted.currentMessage, model);
    // Messages the summary covers stay in the log but not in the history: `context` stands for them.
    const unsummarized = session ? session.messageCount - session.summarized.messages : 0;
    const tail =
      session && unsummarized > 0 && historyBound > 0
        ? await readHistoryTail({
            store,
            key,
            totalMessages: unsummarized,
            afterSeq: session.summarized.throughSeq,
            maxTokens: historyBound,
            costOf,
            turnWindow:
              agent.memory.pruningStrategy === 'sliding-window' ? agent.memory.slidingWindowTurns : null,
            averageCost: messageCost((session.tokenCount - session.summarized.tokens) / unsummarized, model),
          })
        : { messages: [], olderNotRead: unsummarized };
    const { items, reports } = await retrieval;

    // Counted in slices: weighing 50 long memories is tens of milliseconds (assembleContextSteps).
    const assembled: AssembledContext = await drainInSlices(
      assembleContextSteps({
        systemPrompt: agent.systemPrompt,
        memory: agent.memory,
        model,
        counter,
        currentMessage: message,
        summary: session?.context ?? null,
        summaryCoversHistory: (session?.summarized.throughSeq ?? 0) > 0,
        history: tail.messages,
        olderNotRead: tail.olderNotRead,
        retrieved: items,
        sourceReports: reports,
        removedIds: new Set(removed),
        pinnedIds: new Set(pinned),
        counted,
      }),
      pause,
    );
    assembled.trace.durationMs = performance.now() - started;
    if (request.preview !== true) {
      // An observer is diagnostics too: its failure is reported, the turn goes on.
      try {
        onTrace?.(assembled.trace, request.session);
      } catch (error) {
        reportError(error);
      }
      // The trace log serves the inspector: queued, written in batches off the turn (never fails it).
      await traces.record(key, agent.id, assembled.trace).catch(reportError);
    }
    const formatted =
      format === 'openai'
        ? toOpenAIMessages(assembled.messages)
        : format === 'anthropic'
          ? toAnthropicMessages(assembled.messages)
          : assembled.messages;
    return { messages: formatted, context: assembled.messages, trace: assembled.trace };
  }

  return assemble as <F extends ContextFormat = 'openai'>(
    request: AssembleRequest<F>,
  ) => Promise<AssembleResult<F>>;
}
