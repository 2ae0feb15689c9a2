import type { MemoryConfig } from '../schemas/agent.js';
import type { TraceScoreComponents } from './context-trace.js';

/** The context sections that retrieved memories fill, in their fixed order. */
export type RetrievalSection = 'procedure' | 'knowledge' | 'episodes';
export const RETRIEVAL_SECTIONS: readonly RetrievalSection[] = ['procedure', 'knowledge', 'episodes'];

/**
 * How many items a source of `section` is asked for on a turn: the agent's `semanticTopK` for
 * knowledge, `episodicTopK` for episodes, and the one procedure a turn can use.
 */
export function retrievalLimit(
  section: RetrievalSection,
  memory: Pick<MemoryConfig, 'semanticTopK' | 'episodicTopK'>,
): number {
  if (section === 'knowledge') return memory.semanticTopK;
  if (section === 'episodes') return memory.episodicTopK;
  return 1;
}

/** One retrieved candidate for a context section. */
export interface MemoryItem {
  id: string;
  /** The text placed in the context. */
  text: string;
  /** Relevance in [0, 1]; higher first. */
  score: number;
  /**
   * The parts `score` was computed from (e.g. `similarity`, `decayed_salience`, `text_score`), for
   * the Context Inspector. Numbers only: the trace keeps them at rest (see `TraceScoreComponents`).
   */
  components?: TraceScoreComponents;
  /** Attribution shown in the context, e.g. a document name (`Source: HR Policy 2025.md`). */
  source?: string;
  /** A date shown with episodes, e.g. when the conversation happened. */
  date?: string;
  /** Set when a newer version replaces this item: it is never included. */
  supersededBy?: string | null;
  /** Cached content token count in `tokenEncoding`, when the source has one. */
  tokenCount?: number;
  tokenEncoding?: string;
}

/** What a source is asked for on every turn. */
export interface RetrievalRequest {
  tenantId: string;
  namespace: string | null;
  userId: string | null;
  sessionId: string;
  agentId: string;
  /** The current user message. */
  query: string;
  /** How many items the section wants (from the agent's topK settings). */
  limit: number;
  /** Memories the user pinned to this session (always wanted) or removed from it (never). */
  pinnedIds?: string[];
  removedIds?: string[];
  /** A preview (nothing is written): a source must not record accesses or other side effects. */
  readOnly?: boolean;
}

/**
 * A pluggable retriever (procedural, semantic, episodic, knowledge...). It must honour `signal`:
 * when the timeout fires the assembler stops waiting and records the source as degraded.
 */
export interface MemorySource {
  readonly name: string;
  readonly section: RetrievalSection;
  /** Overrides the agent's `sourceTimeoutMs` for this source. */
  readonly timeoutMs?: number;
  retrieve(request: RetrievalRequest, signal: AbortSignal): Promise<MemoryItem[]>;
}

/** How one source fared on one turn; part of the trace. */
export interface SourceReport {
  name: string;
  section: RetrievalSection;
  status: 'ok' | 'timeout' | 'error';
  durationMs: number;
  itemCount: number;
  /** The error message when status is `error` (never swallowed silently). */
  error?: string;
}
