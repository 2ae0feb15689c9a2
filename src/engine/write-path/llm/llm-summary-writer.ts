import { LlmError } from '../../../providers/llm/llm-error.js';
import type { LlmProvider } from '../../../providers/llm/llm-provider.js';
import type { SummaryWriter } from '../../sessions/session-summarizer.js';
import { DATA_RULE } from './extraction-prompts.js';
import { dataBlock, renderTranscript } from './render-transcript.js';

/** Options of {@link createLlmSummaryWriter}. */
export interface LlmSummaryWriterOptions {
  /** Longest summary accepted, in characters (default 4,000, as the extractive summary). */
  maxChars?: number;
  /**
   * A new summary shorter than this share of the previous one is taken as one that dropped facts
   * and rejected (retryable) instead of recorded (default 0.5).
   */
  minRetainedShare?: number;
}

const CHARS_PER_TOKEN = 3;
/** The summarizer's "nothing to add" answers (it keeps the previous summary for them). */
const NO_CHANGE = /^\W*(no (change|changes|update|new information)|unchanged|nothing (new|to add)|n\/a)\W*$/i;

function systemPrompt(maxChars: number): string {
  return [
    'You maintain the running summary of a conversation between a user and an assistant. The summary',
    "replaces the older messages in the assistant's context, so whatever it leaves out is forgotten.",
    'Merge the previous summary with the new messages into one updated summary:',
    '- Keep every fact of the previous summary: names, numbers, dates, preferences, decisions, open tasks.',
    '  Update a fact when the new messages change it (say what changed); never silently drop one.',
    '- Add what the new messages establish: facts about the user, decisions, results of tool calls that',
    '  matter later, commitments and open questions. Leave out greetings and small talk.',
    '- Write dates as absolute dates (the messages carry their timestamps); name people instead of using',
    '  pronouns.',
    `- Stay under ${maxChars} characters: when space runs short, compress the wording of older points`,
    '  rather than removing them.',
    'Answer with the summary text only: no preamble, no JSON, no Markdown headings.',
    DATA_RULE,
  ].join('\n');
}

/**
 * A SummaryWriter for the session summarizer that asks the model for a progressive summary: the
 * previous summary merged with the messages leaving working memory (tool calls and results
 * rendered compactly), within `maxChars`. Answers that break the contract reject with the
 * retryable LlmError `llm_output_invalid`, so the job runner samples again instead of recording a
 * summary that lost facts: cut off by the token limit, longer than `maxChars`, or shorter than
 * `minRetainedShare` of the previous summary. An empty or "no change" answer is returned as is;
 * the summarizer then keeps the previous summary and adds the extractive one.
 */
export function createLlmSummaryWriter(
  llm: LlmProvider,
  options: LlmSummaryWriterOptions = {},
): SummaryWriter {
  const maxChars = options.maxChars ?? 4_000;
  const minRetainedShare = options.minRetainedShare ?? 0.5;
  const invalid = (problem: string, details: Record<string, unknown>) =>
    new LlmError('llm_output_invalid', `${llm.model} did not write a usable summary: ${problem}`, {
      details: { problem, ...details },
    });

  return async (previous, messages, { signal } = {}): Promise<string> => {
    const completion = await llm.complete({
      messages: [
        { role: 'system', content: systemPrompt(maxChars) },
        {
          role: 'user',
          content: [
            dataBlock('previous_summary', previous?.trim() || '(none yet)'),
            dataBlock('transcript', renderTranscript(messages)),
          ].join('\n\n'),
        },
      ],
      // Room for the whole bound plus slack: a summary cut off mid-sentence is rejected below.
      maxTokens: Math.ceil((maxChars / CHARS_PER_TOKEN) * 1.5),
      ...(signal ? { signal } : {}),
    });
    const summary = completion.content.trim();
    if (completion.finishReason === 'length') {
      throw invalid('the answer was cut off at the token limit', { chars: summary.length });
    }
    if (summary.length > maxChars) {
      throw invalid(`${summary.length} characters, limit ${maxChars}`, { chars: summary.length, maxChars });
    }
    const before = previous?.trim().length ?? 0;
    if (summary.length > 0 && !NO_CHANGE.test(summary) && summary.length < before * minRetainedShare) {
      throw invalid(`it shrank the previous summary from ${before} to ${summary.length} characters`, {
        chars: summary.length,
        previousChars: before,
      });
    }
    return summary;
  };
}
