import type { StoredMessage } from '../../core/schemas/message.js';
import type { ProcedureInput } from '../../core/schemas/procedure.js';
import { extractiveSummary } from '../../core/summarization/extractive-summary.js';
import type { LlmProvider } from '../../providers/llm/llm-provider.js';

/** Writes an episode's text from the session's unsummarized messages and its running summary. */
export type EpisodeWriter = (
  llm: LlmProvider | null,
  input: { messages: StoredMessage[]; summary: string | null },
) => Promise<{ summary: string; keyFacts: string[] }>;

/** A procedure the capture proposes; it is always stored as `pending` for the agent. */
export type ProcedureProposal = Omit<ProcedureInput, 'agentId' | 'status'>;

/** Proposes a procedure the session's conversation shows (null: none worth keeping). */
export type ProcedureCapturer = (
  llm: LlmProvider,
  input: { messages: StoredMessage[]; agentId: string },
) => Promise<ProcedureProposal | null>;

/**
 * The episode without a model: the running summary followed by the most informative sentences of
 * the messages (extractiveSummary), and as key facts the most informative sentences of the user.
 */
export const extractiveEpisodeWriter: EpisodeWriter = async (_llm, { messages, summary }) => {
  const text =
    extractiveSummary(summary, messages, 2_000).trim() ||
    `(${messages.length} messages without informative content)`;
  const keyFacts = extractiveSummary(
    null,
    messages.filter((message) => message.role === 'user'),
    800,
  )
    .split('\n')
    .map((line) => line.replace(/^- user: /, '').trim())
    .filter((line) => line.length > 0)
    .slice(0, 10);
  return { summary: text, keyFacts };
};
