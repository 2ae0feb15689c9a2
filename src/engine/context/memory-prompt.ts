import type { ContextMessage } from '../../core/assembly/context-message.js';
import type { ContextTrace } from '../../core/assembly/context-trace.js';
import type { MemorySource } from '../../core/assembly/memory-source.js';
import { SECTION_HEADINGS } from '../../core/assembly/render-section.js';
import { resolveModel } from '../../core/tokens/model-registry.js';
import { loadTokenCounter, messageCost } from '../../core/tokens/token-counter.js';
import type { Engram } from '../../engram.js';
import type { SearchHit, SearchRequest } from '../../retrieval/hybrid-search.js';

/** AMS's headings and empty-result sentence (agent-memory-server 0.15, memory prompt). */
export const SUMMARY_HEADING = '## A summary of the conversation so far:';
export const LONG_TERM_HEADING = "## Long term memories related to the user's query";
export const NO_LONG_TERM_MEMORIES = 'No relevant long-term memories found.';
/**
 * engram's sentence when the search found memories but none fitted the window: AMS's would tell
 * the model that there are none, and it would answer as if it knew nothing.
 */
export const NO_LONG_TERM_MEMORIES_FIT =
  'Relevant long-term memories were found, but none fit in the context window.';

/** Model used when the request names none (its tokenizer counts, its window is the budget). */
export const DEFAULT_PROMPT_MODEL = 'gpt-4o';
/** Smallest budget the assembler accepts. */
const MIN_WINDOW = 64;
/** Stands in for "no session": assembly reads no history for a session that does not exist. */
const NO_SESSION_ID = '__engram_memory_prompt_without_session__';

/** What a memory prompt is built from; transport-neutral (HTTP and MCP map their requests to it). */
export interface MemoryPromptRequest {
  /** The user's query: the last message, and the long-term search text. */
  query: string;
  /** The conversation whose summary and messages come first; an unknown session counts as empty. */
  session?: {
    sessionId: string;
    namespace?: string | null;
    userId?: string | null;
    /** Picks the tokenizer, and the window unless `contextWindowMax` is given. */
    modelName?: string;
    /** Its context window by AMS's table, when it differs from engram's (AMS names only). */
    modelWindow?: number;
    contextWindowMax?: number;
  };
  /** A long-term search to run (its `text` is replaced by `query`); absent: no memory section. */
  search?: SearchRequest;
}

/** One prompt message: roles are `system`, `user` and `assistant` only (MCP's prompt roles plus system). */
export interface PromptMessage {
  role: 'system' | 'user' | 'assistant';
  text: string;
}

export interface MemoryPrompt {
  /** Summary, history (oldest first), long-term memories, query: the AMS order. */
  messages: PromptMessage[];
  /** The search hits placed in the prompt, best first; null when no search ran or none was placed. */
  memories: SearchHit[] | null;
  /** Every search match (for the caller's own bookkeeping), 0 without a search. */
  total: number;
  /** The assembler's trace: budget, what each section kept and dropped, and why. */
  trace: ContextTrace;
}

const toRole = (role: ContextMessage['role']): PromptMessage['role'] =>
  role === 'user' ? 'user' : 'assistant';

/**
 * Builds an AMS-shaped memory prompt with engram's budgeted assembler, so the whole prompt fits the
 * window (AMS only trims the history, and only when a model is named):
 * - window: `contextWindowMax`, else the model's (AMS's table for AMS names), else gpt-4o's; the
 *   budget is the window (no output reservation), less the few tokens AMS's wording needs beyond
 *   the assembler's;
 * - the search hits fill the knowledge section (at most 30 % of the budget, best first, each line
 *   counted with its `(ID: …)`), then the session's summary and the newest turns that fit;
 * - the result is laid out as AMS does: summary, history (roles other than user become assistant),
 *   the long-term memory block (AMS's exact text), the query last.
 * The session's curation (removed memories) applies. Throws ContextBudgetExceededError when the
 * query alone does not fit.
 */
export async function buildMemoryPrompt(
  engram: Engram,
  tenantId: string,
  request: MemoryPromptRequest,
): Promise<MemoryPrompt> {
  const { session, search } = request;
  const model = resolveModel(session?.modelName ?? DEFAULT_PROMPT_MODEL);
  const window = Math.min(
    model.contextWindow,
    Math.max(MIN_WINDOW, session?.contextWindowMax ?? session?.modelWindow ?? model.contextWindow),
  );
  const counter = await loadTokenCounter(model.encoding);
  const cost = (text: string) => messageCost(counter.count(text), model);
  // Tokens AMS's wording needs beyond what the assembler counts for its own headings.
  const reserve =
    (search ? cost(`${LONG_TERM_HEADING}\n ${NO_LONG_TERM_MEMORIES_FIT}`) : 0) +
    Math.max(0, counter.count(SUMMARY_HEADING) - counter.count(SECTION_HEADINGS.summary));

  const result = search
    ? await engram.memories.search(tenantId, { ...search, text: request.query })
    : { hits: [], total: 0 };
  const { hits } = result;
  const source: MemorySource = {
    name: 'long-term-search',
    section: 'knowledge',
    // Rank scores in (0, 1] keep the search order; the line is counted as AMS renders it.
    retrieve: async () =>
      hits.map((hit, rank) => ({
        id: hit.memory.id,
        text: `${hit.memory.text} (ID: ${hit.memory.id})`,
        score: 1 - rank / hits.length,
      })),
  };
  const assembled = await engram.assemble({
    session: {
      tenantId,
      sessionId: session?.sessionId ?? NO_SESSION_ID,
      namespace: session?.namespace ?? null,
      userId: session?.userId ?? null,
    },
    message: request.query,
    format: 'neutral',
    sources: hits.length > 0 ? [source] : [],
    agent: {
      systemPrompt: '',
      memory: {
        model: model.name,
        maxWorkingMemoryTokens: window,
        reservedOutputTokens: Math.min(window - 1, reserve),
        pruningStrategy: 'summarize',
        semanticTopK: Math.max(1, hits.length),
        episodicTopK: 0,
        sourceTimeoutMs: 60_000,
      },
    },
  });

  const knowledge = assembled.trace.sections.find((section) => section.name === 'knowledge');
  const placed = new Set(knowledge?.items.filter((item) => item.included).map((item) => item.id));
  const memories = hits.filter((hit) => placed.has(hit.memory.id));
  const messages: PromptMessage[] = [];
  for (const message of assembled.context) {
    if (message.section !== 'history') continue;
    if (message.id === undefined) {
      const summary = message.content.slice(SECTION_HEADINGS.summary.length + 1);
      messages.push({ role: 'system', text: `${SUMMARY_HEADING}\n${summary}` });
    } else {
      messages.push({ role: toRole(message.role), text: message.content });
    }
  }
  if (search) {
    const lines = memories.map((hit) => `- ${hit.memory.text} (ID: ${hit.memory.id})`);
    const body =
      lines.length > 0
        ? lines.join('\n')
        : hits.length > 0
          ? NO_LONG_TERM_MEMORIES_FIT
          : NO_LONG_TERM_MEMORIES;
    messages.push({ role: 'system', text: `${LONG_TERM_HEADING}\n ${body}` });
  }
  messages.push({ role: 'user', text: request.query });
  return {
    messages,
    memories: memories.length > 0 ? memories : null,
    total: result.total,
    trace: assembled.trace,
  };
}
