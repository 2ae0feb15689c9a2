import { analyzeText } from '../text/analyze-text.js';

/** A message as the summarizer sees it. */
export interface SummarizedMessage {
  role: string;
  content: string;
}

const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g;
const MAX_SENTENCE_CHARS = 300;

interface Candidate {
  order: number;
  text: string;
  score: number;
}

/**
 * The summary used when no LLM is configured: the most informative sentences of the user and
 * assistant messages, in their original order, as `- role: sentence` lines, within `maxChars`.
 * A sentence's score is the sum of its terms' inverse document frequency over the batch divided
 * by the square root of its length, so rare, specific sentences beat small talk. The previous
 * summary is kept in front (trimmed from its oldest lines when space runs out), so the result is
 * never emptier than what it replaces.
 */
export function extractiveSummary(
  previous: string | null,
  messages: readonly SummarizedMessage[],
  maxChars = 4_000,
): string {
  const steps = extractiveSummarySteps(previous, messages, maxChars);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/**
 * extractiveSummary as steps: the generator pauses (yields) before each message and each candidate
 * sentence, and returns the same summary. A caller on the event loop drains it in time slices, so
 * summarizing 100,000 messages holds no other request.
 */
export function* extractiveSummarySteps(
  previous: string | null,
  messages: readonly SummarizedMessage[],
  maxChars = 4_000,
): Generator<void, string, void> {
  const candidates: Candidate[] = [];
  for (const message of messages) {
    yield;
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    for (const match of message.content.matchAll(SENTENCE)) {
      const sentence = match[0].replace(/\s+/g, ' ').trim();
      if (analyzeText(sentence).length === 0) continue;
      const text =
        sentence.length > MAX_SENTENCE_CHARS ? `${sentence.slice(0, MAX_SENTENCE_CHARS)}…` : sentence;
      candidates.push({ order: candidates.length, text: `- ${message.role}: ${text}`, score: 0 });
    }
  }
  const documentFrequency = new Map<string, number>();
  const termsOf: Set<string>[] = [];
  for (const candidate of candidates) {
    yield;
    const terms = new Set(analyzeText(candidate.text));
    termsOf.push(terms);
    for (const term of terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  for (const [index, candidate] of candidates.entries()) {
    yield;
    const terms = termsOf[index] ?? new Set<string>();
    let weight = 0;
    for (const term of terms) weight += Math.log(1 + candidates.length / (documentFrequency.get(term) ?? 1));
    candidate.score = weight / Math.sqrt(terms.size || 1);
  }

  const previousLines = (previous ?? '').split('\n').filter((line) => line.trim().length > 0);
  // New lines get at least half the space; the previous summary keeps the rest (newest lines).
  const newBudget = previousLines.length === 0 ? maxChars : Math.floor(maxChars / 2);
  const chosen: Candidate[] = [];
  let used = 0;
  for (const candidate of [...candidates].sort((left, right) => right.score - left.score)) {
    if (used + candidate.text.length + 1 > newBudget) continue;
    chosen.push(candidate);
    used += candidate.text.length + 1;
  }
  chosen.sort((left, right) => left.order - right.order);
  const kept: string[] = [];
  let remaining = maxChars - used;
  for (let index = previousLines.length - 1; index >= 0; index -= 1) {
    const line = previousLines[index] ?? '';
    if (line.length + 1 > remaining) break;
    kept.unshift(line);
    remaining -= line.length + 1;
  }
  const lines = [...kept, ...chosen.map((candidate) => candidate.text)];
  return lines.length > 0 ? lines.join('\n') : (previous ?? '');
}
