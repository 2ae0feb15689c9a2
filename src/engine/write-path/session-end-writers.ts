import type { StoredMessage } from '../../core/schemas/message.js';
import type { ProcedureInput } from '../../core/schemas/procedure.js';
import type { LlmProvider } from '../../providers/llm/llm-provider.js';

/**
 * The LLM functions the end-session job calls (`writeEpisode`, `captureProcedure` in ./llm/ by
 * default), as types, so tests and embedders can substitute them.
 */

/** Writes an episode's text from the session's unsummarized messages and its running summary. */
export type EpisodeWriter = (
  llm: LlmProvider | null,
  input: { messages: StoredMessage[]; summary: string | null; signal?: AbortSignal },
) => Promise<{ summary: string; keyFacts: string[] }>;

/** A procedure the capture proposes; it is always stored as `pending` for the agent. */
export type ProcedureProposal = Omit<ProcedureInput, 'agentId' | 'status'>;

/** Proposes a procedure the session's conversation shows (null: none worth keeping). */
export type ProcedureCapturer = (
  llm: LlmProvider,
  input: { messages: StoredMessage[]; agentId: string; signal?: AbortSignal },
) => Promise<ProcedureProposal | null>;
