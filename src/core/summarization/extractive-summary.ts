import { analyzeText } from '../text/analyze-text.js';

/** A message as the summarizer sees it. */
export interface SummarizedMessage {
  role: string;
  content: string;
}

const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g;
const MAX_SENTENCE_CHARS = 300;
/**
 * Characters of a sentence analyzed to decide whether it says anything at all (its line shows 300):
 * a 900 KB message without punctuation is one sentence, and analyzing it whole held the event loop
 * for one step of about 60 ms.
 */
const MAX_ANALYZED_CHARS = 1_200;

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
  // Candidates are kept as numbers, not objects, strings and sets: a summary of 100,000 messages
  // held all of them while it ran, and the garbage collector copied each in pauses of the event
  // loop. A candidate is where its sentence lies (message, offset, length) and its terms' ids.
  const places: number[] = [];
  const lineLengths: number[] = [];
  const termStarts: number[] = [0];
  const termIds: number[] = [];
  const idOf = new Map<string, number>();
  const documentFrequency: number[] = [];
  const prefixTerms = new Map<string, string[]>();
  for (const [messageIndex, message] of messages.entries()) {
    yield;
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    for (const match of message.content.matchAll(SENTENCE)) {
      const sentence = match[0].replace(/\s+/g, ' ').trim();
      const sentenceTerms = analyzeText(
        sentence.length > MAX_ANALYZED_CHARS ? sentence.slice(0, MAX_ANALYZED_CHARS) : sentence,
      );
      if (sentenceTerms.length === 0) continue;
      const line = candidateLine(message.role, sentence);
      // The line's terms are the prefix's and the sentence's, unless the sentence was cut.
      let prefix = prefixTerms.get(message.role);
      if (prefix === undefined) {
        prefix = analyzeText(candidateLine(message.role, ''));
        prefixTerms.set(message.role, prefix);
      }
      const terms = new Set(
        sentence.length <= MAX_SENTENCE_CHARS ? [...prefix, ...sentenceTerms] : analyzeText(line),
      );
      for (const term of terms) {
        let id = idOf.get(term);
        if (id === undefined) {
          id = documentFrequency.length;
          idOf.set(term, id);
          documentFrequency.push(0);
        }
        documentFrequency[id] = (documentFrequency[id] ?? 0) + 1;
        termIds.push(id);
      }
      termStarts.push(termIds.length);
      places.push(messageIndex, match.index, match[0].length);
      lineLengths.push(line.length);
    }
  }
  const count = lineLengths.length;
  const scores = new Float64Array(count);
  for (let index = 0; index < count; index++) {
    if (index % 64 === 0) yield;
    const from = termStarts[index] ?? 0;
    const to = termStarts[index + 1] ?? from;
    let weight = 0;
    for (let at = from; at < to; at++)
      weight += Math.log(1 + count / (documentFrequency[termIds[at] ?? 0] ?? 1));
    scores[index] = weight / Math.sqrt(to - from || 1);
  }

  const previousLines = (previous ?? '').split('\n').filter((line) => line.trim().length > 0);
  // New lines get at least half the space; the previous summary keeps the rest (newest lines).
  const newBudget = previousLines.length === 0 ? maxChars : Math.floor(maxChars / 2);
  const chosen: number[] = [];
  let used = 0;
  // Best first; equal scores in their original order (as the stable sort of the first version).
  // Taken from a heap, a few at a time: sorting 100,000 candidates was one step of about 40 ms,
  // and once no line fits any more the rest need not be ordered at all.
  const shortest = lineLengths.reduce((least, length) => Math.min(least, length), Number.POSITIVE_INFINITY);
  const better = (left: number, right: number) =>
    (scores[left] ?? 0) > (scores[right] ?? 0) ||
    ((scores[left] ?? 0) === (scores[right] ?? 0) && left < right);
  const heap = Int32Array.from({ length: count }, (_, index) => index);
  let size = count;
  const siftDown = (from: number) => {
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let best = at;
      if (left < size && better(heap[left] as number, heap[best] as number)) best = left;
      if (right < size && better(heap[right] as number, heap[best] as number)) best = right;
      if (best === at) return;
      [heap[at], heap[best]] = [heap[best] as number, heap[at] as number];
      at = best;
    }
  };
  for (let at = (size >> 1) - 1; at >= 0; at--) {
    if (at % 1_024 === 0) yield;
    siftDown(at);
  }
  for (let popped = 0; size > 0 && used + shortest + 1 <= newBudget; popped++) {
    if (popped % 256 === 0) yield;
    const index = heap[0] as number;
    size--;
    heap[0] = heap[size] as number;
    siftDown(0);
    const length = lineLengths[index] ?? 0;
    if (used + length + 1 > newBudget) continue;
    chosen.push(index);
    used += length + 1;
  }
  chosen.sort((left, right) => left - right);
  const kept: string[] = [];
  let remaining = maxChars - used;
  for (let index = previousLines.length - 1; index >= 0; index -= 1) {
    const line = previousLines[index] ?? '';
    if (line.length + 1 > remaining) break;
    kept.unshift(line);
    remaining -= line.length + 1;
  }
  const lineAt = (index: number) => {
    const message = messages[places[3 * index] ?? 0] as SummarizedMessage;
    const start = places[3 * index + 1] ?? 0;
    const sentence = message.content
      .slice(start, start + (places[3 * index + 2] ?? 0))
      .replace(/\s+/g, ' ')
      .trim();
    return candidateLine(message.role, sentence);
  };
  const lines = [...kept, ...chosen.map(lineAt)];
  return lines.length > 0 ? lines.join('\n') : (previous ?? '');
}

/** `- role: sentence`, the sentence cut at MAX_SENTENCE_CHARS. */
function candidateLine(role: string, sentence: string): string {
  const text = sentence.length > MAX_SENTENCE_CHARS ? `${sentence.slice(0, MAX_SENTENCE_CHARS)}…` : sentence;
  return `- ${role}: ${text}`;
}
