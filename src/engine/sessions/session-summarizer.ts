import { VersionConflictError } from '../../core/errors.js';
import { createEventLoopSlicer, drainInSlices, nextTurn } from '../../core/event-loop-slicer.js';
import type { StoredMessage } from '../../core/schemas/message.js';
import type { SessionState } from '../../core/schemas/session.js';
import { extractiveSummarySteps } from '../../core/summarization/extractive-summary.js';
import {
  defaultSummarizationPolicy,
  type SummarizationPolicy,
} from '../../core/summarization/plan-summarization.js';
import { MESSAGE_OVERHEAD_TOKENS } from '../../core/tokens/token-counter.js';
import type { SessionStore } from '../../stores/session-store.js';
import type { SessionOperations } from './session-operations.js';
import { type SessionRef, toSessionKey } from './session-ref.js';
import { extractiveSummaryInPages, forEachPage, planCutInPages } from './summary-pages.js';

/** Writes the new running summary from the previous one and the messages leaving working memory. */
export type SummaryWriter = (
  previous: string | null,
  messages: readonly StoredMessage[],
  options?: { signal?: AbortSignal },
) => Promise<string>;

/** The job a summary runs in: its signal, and the lease check before writes (JobContext). */
export interface SummarizeJob {
  signal?: AbortSignal;
  confirmLease?: () => Promise<void>;
}

/** Answers a model gives when it has nothing to add; they never replace a summary. */
const NO_CHANGE = /^\W*(no (change|changes|update|new information)|unchanged|nothing (new|to add)|n\/a)\W*$/i;

export interface SessionSummarizerOptions {
  store: SessionStore;
  sessions: SessionOperations;
  policy: SummarizationPolicy;
  /** The LLM's summary; absent = the extractive summary (documented fallback, no LLM needed). */
  writer?: SummaryWriter;
  /**
   * Runs before the summary is recorded, with the last seq about to leave working memory
   * (extraction reads those messages first, so the summary never hides unread facts).
   */
  beforeSummarize?: (ref: SessionRef, throughSeq: number, job: SummarizeJob) => Promise<void>;
}

export type SummarizeOutcome =
  | { status: 'summarized'; throughSeq: number; messages: number; writer: 'llm' | 'extractive' }
  | { status: 'skipped'; reason: 'absent' | 'under-threshold' | 'superseded' };

/** Policy defaults for a model window: summarize past 70 %, keep the newest 30 % verbatim. */
export const summarizationPolicyFor = (contextWindow: number): SummarizationPolicy => ({
  contextWindow,
  ...defaultSummarizationPolicy,
});

/**
 * Folds the oldest unsummarized messages of a session into its running summary once they pass the
 * policy's threshold. Messages stay in the durable log; the summary is recorded by compare-and-set
 * on the summary mark, so appends made meanwhile are never lost and a concurrent summarizer makes
 * this one a no-op. An empty or "no change" answer never replaces the summary: the extractive
 * summary is used instead.
 */
export function createSessionSummarizer(options: SessionSummarizerOptions) {
  const { store, sessions, policy } = options;

  /**
   * O(1) check on the session state: do the unsummarized messages pass the threshold of the
   * policy's window, or of `contextWindow` (the model a write named, e.g. AMS `model_name`)?
   */
  function needsSummary(state: SessionState, contextWindow = policy.contextWindow): boolean {
    const messages = state.messageCount - state.summarized.messages;
    const tokens = state.tokenCount - state.summarized.tokens + messages * MESSAGE_OVERHEAD_TOKENS;
    return tokens > contextWindow * policy.threshold;
  }

  async function summarize(
    ref: SessionRef,
    contextWindow = policy.contextWindow,
    job: SummarizeJob = {},
  ): Promise<SummarizeOutcome> {
    const key = toSessionKey(ref);
    // The job often starts right after the write that enqueued it, in the same turn: let other
    // requests run between that write's transaction and this read (each is one synchronous step).
    await nextTurn();
    const state = await store.getSession(key);
    if (!state) return { status: 'skipped', reason: 'absent' };
    if (!needsSummary(state, contextWindow)) return { status: 'skipped', reason: 'under-threshold' };
    const pacing = createEventLoopSlicer();
    const afterSeq = state.summarized.throughSeq;
    const cut = await planCutInPages(store, key, {
      afterSeq,
      costOf: (message) => message.tokenCount + MESSAGE_OVERHEAD_TOKENS,
      keepBudget: contextWindow * policy.keepRecent,
      pause: pacing.pause,
    });
    if (!cut) return { status: 'skipped', reason: 'under-threshold' };
    const range = { afterSeq, throughSeq: cut.throughSeq };
    await options.beforeSummarize?.(ref, cut.throughSeq, job);
    let writer: 'llm' | 'extractive' = 'extractive';
    let context = '';
    let folded = 0;
    // The model is given every message leaving working memory, as before.
    let leaving: StoredMessage[] | null = null;
    if (options.writer) {
      const read: StoredMessage[] = [];
      await forEachPage(store, key, range, async (page) => {
        for (const message of page) read.push(message);
      });
      leaving = read;
      folded = read.length;
      const answer = (
        await options.writer(state.context, leaving, job.signal ? { signal: job.signal } : {})
      ).trim();
      if (answer.length > 0 && !NO_CHANGE.test(answer)) {
        context = answer;
        writer = 'llm';
      }
    }
    if (writer === 'extractive') {
      // Read a page at a time, in ~2 ms slices (DEFAULT_SLICE_MS): a session of 100,000 messages
      // otherwise held the event loop for seconds, and all its messages in memory at once.
      // Messages the model was given are summarized as they are, not read again.
      const summary = leaving
        ? {
            context: await drainInSlices(extractiveSummarySteps(state.context, leaving), pacing.pause),
            messages: leaving.length,
          }
        : await extractiveSummaryInPages(store, key, state.context, range, pacing.pause);
      if (!summary) return { status: 'skipped', reason: 'superseded' };
      folded = summary.messages;
      context = summary.context || `(${folded} earlier messages without informative content)`;
    }
    try {
      await sessions.recordSummary(ref, {
        context,
        throughSeq: cut.throughSeq,
        expectedThroughSeq: state.summarized.throughSeq,
        // Neither a session deleted and created again meanwhile, nor a context a caller wrote.
        expectedContext: state.context,
        expectedCreatedAt: state.createdAt,
      });
    } catch (error) {
      // Another summarizer (or a full put) moved the mark first: nothing to do here.
      if (error instanceof VersionConflictError) return { status: 'skipped', reason: 'superseded' };
      throw error;
    }
    return { status: 'summarized', throughSeq: cut.throughSeq, messages: folded, writer };
  }

  return { needsSummary, summarize };
}

export type SessionSummarizer = ReturnType<typeof createSessionSummarizer>;
