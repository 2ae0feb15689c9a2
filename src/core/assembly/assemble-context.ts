import { ContextBudgetExceededError } from '../errors.js';
import type { MemoryConfig } from '../schemas/agent.js';
import type { StoredMessage } from '../schemas/message.js';
import type { ModelInfo } from '../tokens/model-registry.js';
import {
  countContentTokens,
  countSteps,
  countUpTo,
  MESSAGE_OVERHEAD_TOKENS,
  messageCost,
  REPLY_PRIMING_TOKENS,
  type TokenCounter,
} from '../tokens/token-counter.js';
import type { ContextMessage } from './context-message.js';
import type { ContextTrace, SectionTrace } from './context-trace.js';
import { runSteps } from './history-units.js';
import {
  type MemoryItem,
  RETRIEVAL_SECTIONS,
  type RetrievalSection,
  type SourceReport,
} from './memory-source.js';
import { pruneHistory } from './prune-history.js';
import { renderSummary } from './render-section.js';
import { selectItemsSteps } from './select-items.js';
import { historyMessageTokens } from './text-markers.js';

/**
 * Default caps, as shares of the available budget, for sections without an explicit cap, so that
 * retrieved memories can never crowd out the conversation itself.
 */
export const DEFAULT_SECTION_SHARES: Record<RetrievalSection, number> = {
  procedure: 0.15,
  knowledge: 0.3,
  episodes: 0.15,
};

export interface AssembleContextInput {
  systemPrompt: string;
  memory: MemoryConfig;
  model: ModelInfo;
  /** Counter in `model.encoding`, for the texts that are not cached (system, sections, current). */
  counter: TokenCounter;
  currentMessage: string;
  /**
   * The session's running summary (`context`): placed by the `summarize` strategy, and by every
   * strategy once messages were summarized out of the session (it then stands for them).
   */
  summary: string | null;
  /** True when the session has summarized messages that `history` no longer holds. */
  summaryCoversHistory?: boolean;
  /** The newest part of the session's history, oldest first. */
  history: readonly StoredMessage[];
  /** Messages older than `history` that were not read. */
  olderNotRead: number;
  retrieved: Record<RetrievalSection, readonly MemoryItem[]>;
  sourceReports: readonly SourceReport[];
  /** Memory ids the user removed from this session's context. */
  removedIds?: ReadonlySet<string>;
  /** Memory ids pinned to this session: always in their section while the budget allows. */
  pinnedIds?: ReadonlySet<string>;
  /**
   * Content tokens of the system prompt and the current message, when the caller has already
   * counted them with `counter` (the engine does, in slices, to bound the history it reads).
   */
  counted?: { systemPrompt: number; currentMessage: number };
}

export interface AssembledContext {
  messages: ContextMessage[];
  trace: ContextTrace;
}

/**
 * Builds one turn's context under a hard budget. Pure: no I/O; everything it needs is passed in.
 * Order is fixed: system, procedure, knowledge, episodes, history (summary first), current message.
 * The system prompt and current message are mandatory; if they alone exceed the budget this throws
 * ContextBudgetExceededError instead of truncating anything.
 */
export function assembleContext(input: AssembleContextInput): AssembledContext {
  return runSteps(assembleContextSteps(input));
}

/**
 * `assembleContext` as steps: it pauses (yields) after each candidate memory it counts, so the
 * engine can let other requests run while a turn weighs many long memories (a memory prompt over
 * 100 memories of 20,000 characters under a 128k-token window counts hundreds of thousands of
 * characters). Same result.
 */
export function* assembleContextSteps(input: AssembleContextInput): Generator<void, AssembledContext> {
  const { memory, model, counter } = input;
  const available = memory.maxWorkingMemoryTokens - memory.reservedOutputTokens;
  // The cost of `text`; given a `limit`, exact when at most `limit`, else some cost above it
  // (counted only that far): a content count above ceil((limit - overhead) / factor) costs more.
  const costOfText = (text: string, limit = Number.POSITIVE_INFINITY) =>
    messageCost(
      countUpTo(
        counter,
        text,
        Math.max(0, Math.ceil((limit - MESSAGE_OVERHEAD_TOKENS) / model.approximationFactor)),
      ),
      model,
    );
  // A message stored under another encoding is counted again, once (pruning and the trace both
  // ask), as the write path counted it: content, name and tool calls. A formatter's marker (a
  // tool result without its call id becomes marked text) is part of the cost.
  const recounts = new Map<StoredMessage, number>();
  const costOfMessage = (message: StoredMessage) => {
    let tokens = recounts.get(message);
    if (tokens === undefined) {
      const counted = historyMessageTokens(message, model.encoding, counter);
      tokens = counted.tokens;
      if (counted.recounted) recounts.set(message, tokens);
    }
    return messageCost(tokens, model);
  };

  // Counted in steps: a system prompt or message of a megabyte is tens of milliseconds of counting.
  const systemTokens = messageCost(
    input.counted?.systemPrompt ?? (yield* countSteps(counter, input.systemPrompt)),
    model,
  );
  const currentTokens = messageCost(
    input.counted?.currentMessage ?? (yield* countSteps(counter, input.currentMessage)),
    model,
  );
  const required = REPLY_PRIMING_TOKENS + systemTokens + currentTokens;
  if (required > available) throw new ContextBudgetExceededError(required, available);
  let remaining = available - required;

  const sections: SectionTrace[] = [
    {
      name: 'system',
      tokens: systemTokens,
      cap: null,
      items: [{ id: 'system', kind: 'system', included: true, reason: 'included', tokens: systemTokens }],
    },
  ];
  const messages: ContextMessage[] = [{ role: 'system', content: input.systemPrompt, section: 'system' }];

  const removedIds = input.removedIds ?? new Set<string>();
  const limits: Record<RetrievalSection, number> = {
    procedure: 1,
    knowledge: memory.semanticTopK,
    episodes: memory.episodicTopK,
  };
  for (const section of RETRIEVAL_SECTIONS) {
    const cap = memory.sectionCaps[section] ?? Math.floor(available * DEFAULT_SECTION_SHARES[section]);
    const selected = yield* selectItemsSteps({
      section,
      items: input.retrieved[section],
      limit: limits[section],
      minScore: memory.minRelevance[section],
      removedIds,
      ...(input.pinnedIds ? { pinnedIds: input.pinnedIds } : {}),
      cap,
      remaining,
      costOfText,
    });
    remaining -= selected.tokens;
    sections.push({ name: section, tokens: selected.tokens, cap, items: selected.items });
    if (selected.text !== null) messages.push({ role: 'system', content: selected.text, section });
  }

  const historyCap = memory.sectionCaps.history ?? null;
  const placeSummary = memory.pruningStrategy === 'summarize' || input.summaryCoversHistory === true;
  const summaryText = placeSummary && input.summary ? renderSummary(input.summary) : null;
  const pruned = pruneHistory({
    messages: input.history,
    strategy: memory.pruningStrategy,
    slidingWindowTurns: memory.slidingWindowTurns,
    allowance: Math.min(historyCap ?? remaining, remaining),
    costOf: costOfMessage,
    summaryCost: summaryText === null ? null : costOfText(summaryText),
  });
  remaining -= pruned.tokens;
  if (pruned.includeSummary && summaryText !== null) {
    messages.push({ role: 'system', content: summaryText, section: 'history' });
  }
  for (const message of pruned.messages) messages.push(toContextMessage(message));
  sections.push({ name: 'history', tokens: pruned.tokens, cap: historyCap, items: pruned.items });

  messages.push({ role: 'user', content: input.currentMessage, section: 'current' });
  sections.push({
    name: 'current',
    tokens: currentTokens,
    cap: null,
    items: [{ id: 'current', kind: 'current', included: true, reason: 'included', tokens: currentTokens }],
  });

  return {
    messages,
    trace: {
      model: model.name,
      encoding: model.encoding,
      budget: {
        maxWorkingMemoryTokens: memory.maxWorkingMemoryTokens,
        reservedOutputTokens: memory.reservedOutputTokens,
        available,
        used: available - remaining,
      },
      sections,
      history: {
        strategy: memory.pruningStrategy,
        candidates: input.history.length,
        kept: pruned.messages.length,
        olderNotRead: input.olderNotRead,
        recounted: recounts.size,
      },
      sources: [...input.sourceReports],
      degraded: input.sourceReports.some((report) => report.status !== 'ok'),
    },
  };
}

function toContextMessage(message: StoredMessage): ContextMessage {
  return {
    role: message.role,
    content: message.content,
    section: 'history',
    id: message.id,
    ...(message.name ? { name: message.name } : {}),
    ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
    ...(message.toolCallId ? { toolCallId: message.toolCallId } : {}),
  };
}

/** Tokens the assembled messages occupy, counted from scratch: what the property tests check. */
export function countContextTokens(
  messages: readonly ContextMessage[],
  counter: TokenCounter,
  model: ModelInfo,
): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) total += messageCost(countContentTokens(counter, message), model);
  return total;
}
