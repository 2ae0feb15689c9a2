import { z } from 'zod';
import type { StoredMessage } from '../../../core/schemas/message.js';
import { extractiveSummary } from '../../../core/summarization/extractive-summary.js';
import { analyzeText } from '../../../core/text/analyze-text.js';
import { completeJson } from '../../../providers/llm/complete-json.js';
import type { LlmProvider } from '../../../providers/llm/llm-provider.js';
import { DATA_RULE } from './extraction-prompts.js';
import { dataBlock, renderTranscript } from './render-transcript.js';

/** What {@link writeEpisode} reads. */
export interface WriteEpisodeInput {
  /** The session's messages not covered by `summary`, oldest first. */
  messages: readonly StoredMessage[];
  /** The session's running summary of its earlier messages, if any. */
  summary: string | null;
  /** Aborts the model call (the job's signal). */
  signal?: AbortSignal;
}

/** An episode's text, ready for `engram.episodes.record`. */
export interface EpisodeText {
  summary: string;
  keyFacts: string[];
}

/** Bounds, within the episode schema's (10,000 characters, 50 facts of 1,000). */
const MAX_SUMMARY_CHARS = 2_000;
const MAX_KEY_FACTS = 10;
const MAX_FACT_CHARS = 500;
/** The fallback's key facts: the best sentences within this many characters. */
const FALLBACK_FACT_CHARS = 800;

const episodeAnswerSchema = z.object({
  summary: z.string().trim().min(1).max(MAX_SUMMARY_CHARS),
  key_facts: z.array(z.string().trim().min(1).max(MAX_FACT_CHARS)).max(MAX_KEY_FACTS).default([]),
});

const SYSTEM_PROMPT = [
  'You write the episode record of a finished conversation between a user and an assistant: what',
  'happened, for recalling it in later sessions ("last time we ...").',
  '- "summary": a few sentences on what the user wanted, what was done or decided, and how it ended;',
  `  at most ${MAX_SUMMARY_CHARS} characters. It covers the earlier part (the previous summary) as well.`,
  `- "key_facts": up to ${MAX_KEY_FACTS} short, self-contained facts worth recalling (decisions, results,`,
  '  facts learnt about the user), each one sentence.',
  'Refer to the application user as "User", replace pronouns with names, and write absolute dates',
  '(each message carries its timestamp).',
  'Answer with one JSON object and nothing else: {"summary": "...", "key_facts": ["..."]}.',
  DATA_RULE,
].join('\n');

/**
 * Whether a sentence states something specific enough to be a key fact: a number or date, a name
 * (a capitalized word after the first), or at least five content terms. "Great, thanks." is not.
 */
function isSpecific(sentence: string): boolean {
  return /\d/.test(sentence) || /\s\p{Lu}\p{L}+/u.test(sentence) || analyzeText(sentence).length >= 5;
}

/**
 * The extractive episode: the session's running summary with the most informative sentences of
 * the remaining messages (extractiveSummary), and as key facts the most informative sentences of
 * the user's messages (of all messages when the user said nothing informative) that are specific:
 * a number, a name or five content terms. No model needed.
 */
export function extractiveEpisode(input: WriteEpisodeInput): EpisodeText {
  const summary =
    extractiveSummary(input.summary, input.messages, MAX_SUMMARY_CHARS).trim() ||
    `(${input.messages.length} messages without informative content)`;
  const fromUser = input.messages.filter((message) => message.role === 'user');
  const factLines = (messages: readonly StoredMessage[]) =>
    extractiveSummary(null, messages, FALLBACK_FACT_CHARS)
      .split('\n')
      .map((line) => line.replace(/^- (user|assistant): /, '').trim())
      .filter((line) => line.length > 0 && isSpecific(line));
  const userFacts = factLines(fromUser);
  const keyFacts = (userFacts.length > 0 ? userFacts : factLines(input.messages)).slice(0, MAX_KEY_FACTS);
  return { summary, keyFacts };
}

/**
 * Writes the episode of a finished session: with a model, its summary and key facts (validated;
 * a malformed answer rejects with the retryable LlmError `llm_output_invalid`); without one
 * (`llm` null), {@link extractiveEpisode}, the documented fallback.
 */
export async function writeEpisode(llm: LlmProvider | null, input: WriteEpisodeInput): Promise<EpisodeText> {
  if (llm === null || (input.messages.length === 0 && !input.summary?.trim())) {
    return extractiveEpisode(input);
  }
  const { value } = await completeJson(
    llm,
    {
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        {
          role: 'user',
          content: [
            dataBlock('previous_summary', input.summary?.trim() || '(none)'),
            dataBlock('transcript', renderTranscript(input.messages)),
          ].join('\n\n'),
        },
      ],
      ...(input.signal ? { signal: input.signal } : {}),
    },
    episodeAnswerSchema,
  );
  return { summary: value.summary, keyFacts: [...new Set(value.key_facts)] };
}
