import { groupUnitsInSteps, type HistoryUnit, runSteps } from '../assembly/history-units.js';
import type { StoredMessage } from '../schemas/message.js';

/** When a session is summarized and how much of it stays verbatim. */
export interface SummarizationPolicy {
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** Summarize once the unsummarized messages cost more than this share of the window (AMS: 0.7). */
  threshold: number;
  /** Keep at most this share of the window as the verbatim recent tail after summarizing. */
  keepRecent: number;
}

export const defaultSummarizationPolicy = { threshold: 0.7, keepRecent: 0.3 } as const;

/** The messages to fold into the summary (oldest first) and the seq they run through. */
export interface SummarizationPlan {
  summarize: StoredMessage[];
  throughSeq: number;
  /** Token cost of the messages that stay verbatim. */
  keptTokens: number;
}

/**
 * Decides whether to summarize `messages` (the unsummarized part of a session, oldest first) and
 * where to cut. The cut falls between atomic units (a tool call stays with its results) and the
 * newest unit always stays verbatim; null when under the threshold or nothing can be cut.
 */
export function planSummarization(
  messages: readonly StoredMessage[],
  costOf: (message: StoredMessage) => number,
  policy: SummarizationPolicy,
): SummarizationPlan | null {
  return runSteps(planSummarizationInSteps(messages, costOf, policy));
}

/** Messages or units handled between two steps. */
const PER_STEP = 2_048;

/**
 * `planSummarization` as a generator that yields every 2,048 messages or units, so that a caller
 * planning for 100,000 messages can let other work run in between. (The summary job reads a
 * session in pages instead and plans with `keepRecentUnits`; this whole-list plan is its oracle.)
 */
export function* planSummarizationInSteps(
  messages: readonly StoredMessage[],
  costOf: (message: StoredMessage) => number,
  policy: SummarizationPolicy,
): Generator<void, SummarizationPlan | null> {
  let total = 0;
  for (const [index, message] of messages.entries()) {
    total += costOf(message);
    if (index % PER_STEP === PER_STEP - 1) yield;
  }
  if (total <= policy.contextWindow * policy.threshold) return null;
  const keepBudget = policy.contextWindow * policy.keepRecent;
  const units = yield* groupUnitsInSteps(messages);
  const { firstKept, kept } = yield* keepRecentUnits(units, costOf, keepBudget);
  const summarize: StoredMessage[] = [];
  for (let index = 0; index < firstKept; index++) {
    for (const message of units[index]?.messages ?? []) summarize.push(message);
    if (index % PER_STEP === PER_STEP - 1) yield;
  }
  const last = summarize.at(-1);
  if (!last) return null;
  return { summarize, throughSeq: last.seq, keptTokens: kept };
}

/** Where `keepRecentUnits` stopped: the first unit kept verbatim, what the kept units cost. */
export interface RecentUnits {
  firstKept: number;
  kept: number;
  /** True when a unit did not fit (the walk ended there); false when every unit was kept. */
  stopped: boolean;
}

/**
 * Walks back from the newest unit, keeping units while they fit in `keepBudget`; the newest is
 * always kept. A caller that reads only the newest part of a session (the summary job, page by
 * page) knows the cut is the whole session's once the walk `stopped` inside what it read.
 */
export function* keepRecentUnits(
  units: readonly HistoryUnit[],
  costOf: (message: StoredMessage) => number,
  keepBudget: number,
): Generator<void, RecentUnits> {
  let kept = 0;
  let firstKept = units.length;
  for (let index = units.length - 1; index >= 0; index -= 1) {
    if (index % PER_STEP === 0) yield;
    const unit = units[index];
    if (!unit) continue;
    const cost = unit.messages.reduce((sum, message) => sum + costOf(message), 0);
    if (firstKept < units.length && kept + cost > keepBudget) return { firstKept, kept, stopped: true };
    kept += cost;
    firstKept = index;
  }
  return { firstKept, kept, stopped: false };
}
