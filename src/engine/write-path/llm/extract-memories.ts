import { z } from 'zod';
import { MAX_MEMORY_TEXT_CHARS, type MemoryRecordInput } from '../../../core/schemas/memory-record.js';
import type { StoredMessage } from '../../../core/schemas/message.js';
import type { MemoryStrategy } from '../../../core/schemas/session.js';
import { completeJson } from '../../../providers/llm/complete-json.js';
import { LlmError } from '../../../providers/llm/llm-error.js';
import type { LlmProvider } from '../../../providers/llm/llm-provider.js';
import {
  customSystemPrompt,
  discreteSystemPrompt,
  preferencesSystemPrompt,
  summarySystemPrompt,
} from './extraction-prompts.js';
import { dataBlock, describeNow, renderTranscript } from './render-transcript.js';
import { validateCustomPrompt } from './validate-custom-prompt.js';

/** What {@link extractMemories} reads. */
export interface ExtractMemoriesInput {
  strategy: MemoryStrategy;
  /** The messages to extract from, oldest first. */
  messages: readonly StoredMessage[];
  /** The current time; relative dates in messages without a timestamp resolve against it. */
  now: Date;
  namespace: string | null;
  userId: string | null;
  sessionId: string | null;
  /** Memory texts already known for this user, so the model does not repeat them. */
  existing?: readonly string[];
  /** Aborts the model call (the job's signal: the runner closes, or the lease was lost). */
  signal?: AbortSignal;
}

const MAX_TOPICS = 5;
const MAX_ENTITIES = 20;
const MAX_MEMORIES = 50;
/** Known memories shown to the model: the newest ones, each clipped. */
const MAX_KNOWN = 100;
const MAX_KNOWN_CHARS = 300;
/** AMS's `max_summary_length` (words): default and bounds. */
const DEFAULT_SUMMARY_WORDS = 500;
const MAX_SUMMARY_WORDS = 2_000;

const isDate = (value: string) => !Number.isNaN(Date.parse(value));

const tagsSchema = z.array(z.string()).max(200).default([]);

/** One memory as the model answers it. */
const extractedMemorySchema = z.object({
  type: z.enum(['semantic', 'episodic']).default('semantic'),
  text: z.string().trim().min(1).max(MAX_MEMORY_TEXT_CHARS),
  topics: tagsSchema,
  entities: tagsSchema,
  event_date: z.string().refine(isDate, 'event_date is not a date').nullish(),
});
const extractionAnswerSchema = z.object({ memories: z.array(extractedMemorySchema).max(MAX_MEMORIES) });
type ExtractedMemory = z.output<typeof extractedMemorySchema>;

/** Text compared for repeats: lowercase, single spaces, without trailing punctuation. */
const comparable = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!?;,]+$/, '')
    .trim();

/** Trimmed, non-empty, each once (case-insensitively), at most `max`, each at most 256 characters. */
function tags(values: readonly string[], max: number): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const value of values) {
    const tag = value.trim().slice(0, 256);
    if (tag.length === 0 || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    kept.push(tag);
    if (kept.length === max) break;
  }
  return kept;
}

function summaryWords(config: MemoryStrategy['config']): number {
  const value = config.max_summary_length;
  if (typeof value !== 'number' || !Number.isFinite(value)) return DEFAULT_SUMMARY_WORDS;
  return Math.min(MAX_SUMMARY_WORDS, Math.max(20, Math.round(value)));
}

/** The system frame for the strategy; throws a ValidationError for an unsafe custom prompt. */
function systemPromptFor(strategy: MemoryStrategy): string {
  switch (strategy.strategy) {
    case 'discrete':
      return discreteSystemPrompt();
    case 'preferences':
      return preferencesSystemPrompt();
    case 'summary':
      return summarySystemPrompt(summaryWords(strategy.config));
    case 'custom':
      return customSystemPrompt(validateCustomPrompt(strategy.config));
  }
}

function userPrompt(input: ExtractMemoriesInput): string {
  const known = (input.existing ?? []).slice(-MAX_KNOWN).map((text) => `- ${text.slice(0, MAX_KNOWN_CHARS)}`);
  return [
    `Current date and time: ${describeNow(input.now)}`,
    ...(input.strategy.strategy === 'summary' || known.length === 0
      ? []
      : [dataBlock('known_memories', known.join('\n'))]),
    dataBlock('transcript', renderTranscript(input.messages)),
  ].join('\n\n');
}

/** Checks what only the strategy knows: one summary within its word limit. */
function checkStrategy(memories: ExtractedMemory[], strategy: MemoryStrategy, model: string): void {
  if (strategy.strategy !== 'summary') return;
  const invalid = (problem: string) =>
    new LlmError('llm_output_invalid', `${model} did not answer the JSON asked for: ${problem}`, {
      details: { problem, strategy: 'summary' },
    });
  if (memories.length > 1) throw invalid(`expected one summary, got ${memories.length}`);
  const limit = summaryWords(strategy.config);
  const words = memories[0]?.text.split(/\s+/).length ?? 0;
  // Some slack: models count words loosely; far past the limit is a summary that ignored it.
  if (words > Math.ceil(limit * 1.25)) throw invalid(`summary has ${words} words, limit ${limit}`);
}

/**
 * Extracts long-term memories from conversation messages with the session's strategy, as AMS does:
 *
 * - `discrete`: grounded facts (pronouns resolved, "User" for the user, relative dates made absolute
 *   against each message's `createdAt`), typed semantic or episodic, with topics, entities and
 *   `eventDate` when the fact has a date;
 * - `summary`: one summary memory (config `max_summary_length`, words, default 500);
 * - `preferences`: the user's preferences only;
 * - `custom`: what `config.custom_prompt` asks for, quoted as data inside a fixed system frame after
 *   validateCustomPrompt (a ValidationError when it tries to override the instructions).
 *
 * Memories repeating an `existing` text (or each other) are dropped. Each gets the given namespace,
 * user and session. Malformed or out-of-schema answers reject with the retryable LlmError
 * `llm_output_invalid`. No messages: no call, no memories.
 */
export async function extractMemories(
  llm: LlmProvider,
  input: ExtractMemoriesInput,
): Promise<MemoryRecordInput[]> {
  const system = systemPromptFor(input.strategy);
  if (input.messages.length === 0) return [];
  const { value } = await completeJson(
    llm,
    {
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: userPrompt(input) },
      ],
      ...(input.signal ? { signal: input.signal } : {}),
    },
    extractionAnswerSchema,
  );
  checkStrategy(value.memories, input.strategy, llm.model);
  const seen = new Set((input.existing ?? []).map(comparable));
  const memories: MemoryRecordInput[] = [];
  for (const memory of value.memories) {
    const key = comparable(memory.text);
    if (seen.has(key)) continue;
    seen.add(key);
    // Summaries and preferences are semantic and undated, whatever the model says.
    const typed = input.strategy.strategy === 'discrete' || input.strategy.strategy === 'custom';
    const eventDate =
      typed && memory.event_date ? new Date(Date.parse(memory.event_date)).toISOString() : null;
    memories.push({
      text: memory.text,
      memoryType: typed ? memory.type : 'semantic',
      topics: tags(memory.topics, MAX_TOPICS),
      entities: tags(memory.entities, MAX_ENTITIES),
      eventDate,
      namespace: input.namespace,
      userId: input.userId,
      sessionId: input.sessionId,
    });
  }
  return memories;
}
