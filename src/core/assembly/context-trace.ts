import type { SourceReport } from './memory-source.js';

/** Every section of a context, in output order. */
export type SectionName = 'system' | 'procedure' | 'knowledge' | 'episodes' | 'history' | 'current';

/** Why an item is in or out of the context. */
export type ItemReason =
  | 'included'
  | 'over_budget'
  | 'section_cap'
  | 'below_threshold'
  | 'superseded'
  | 'removed_by_user'
  | 'duplicate'
  | 'over_limit'
  | 'outside_window'
  | 'orphan_tool_result'
  | 'strategy';

/**
 * Named numeric parts of a candidate's score (snake_case names, finite numbers): why it ranked
 * where it did. Never content: a trace stores these at rest.
 */
export type TraceScoreComponents = Record<string, number>;

/** One candidate's fate. Metadata only: ids, scores and counts, never content. */
export interface TraceItem {
  id: string;
  kind: 'system' | 'memory' | 'message' | 'summary' | 'current';
  included: boolean;
  reason: ItemReason;
  tokens: number;
  score?: number;
  /** What the score is made of, when the source reports it. */
  components?: TraceScoreComponents;
  source?: string;
}

export interface SectionTrace {
  name: SectionName;
  /** Tokens the section occupies in the context (0 when empty). */
  tokens: number;
  /** The section's cap, or null when uncapped. */
  cap: number | null;
  items: TraceItem[];
}

/** What went into one context and why: kept for the Context Inspector; holds no content. */
export interface ContextTrace {
  model: string;
  encoding: string;
  budget: {
    maxWorkingMemoryTokens: number;
    reservedOutputTokens: number;
    available: number;
    used: number;
  };
  sections: SectionTrace[];
  history: {
    strategy: string;
    /** Messages read from the store and considered. */
    candidates: number;
    kept: number;
    /** Older messages never read because the budget was already full. */
    olderNotRead: number;
    /** Messages whose cached count was in another encoding and had to be counted again. */
    recounted: number;
  };
  sources: SourceReport[];
  /** True when any source failed or timed out. */
  degraded: boolean;
  durationMs?: number;
}
