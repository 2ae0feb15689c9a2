import { NumberColumn } from '../number-column.js';
import { analyzeText } from '../text/analyze-text.js';

/** A message as the summarizer sees it. */
export interface SummarizedMessage {
  role: string;
  content: string;
}

/** A sentence chosen for the summary: which message (the key `add` was given), and where in it. */
export interface ChosenSentence {
  message: number;
  role: 'user' | 'assistant';
  start: number;
  length: number;
}

/** What `choose` decided: the previous summary's lines that stay, and the new sentences in order. */
export interface ExtractiveChoice {
  kept: string[];
  chosen: ChosenSentence[];
}

const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g;
const MAX_SENTENCE_CHARS = 300;
/**
 * Characters of a sentence analyzed to decide whether it says anything at all (its line shows 300):
 * a 900 KB message without punctuation is one sentence, and analyzing it whole held the event loop
 * for one step of about 60 ms.
 */
const MAX_ANALYZED_CHARS = 1_200;
const ROLES = ['user', 'assistant'] as const;

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
  const candidates = createExtractiveCandidates(maxChars);
  yield* candidates.add(messages, (index) => index);
  const choice = yield* candidates.choose(previous);
  return composeSummary(previous, choice, (chosen) =>
    chosenLine((messages[chosen.message] as SummarizedMessage).content, chosen),
  );
}

/**
 * The extractive summary's candidates, gathered a batch of messages at a time: a caller can read a
 * long session page by page and hold only these numbers, never every message at once (the summary
 * job does), then read back the few messages whose sentences were chosen.
 */
export function createExtractiveCandidates(maxChars = 4_000) {
  // Candidates are kept as numbers, not objects, strings and sets: a summary of 100,000 messages
  // held all of them while it ran, and the garbage collector copied each in pauses of the event
  // loop. A candidate is where its sentence lies (message key, role, offset, length) and its terms' ids.
  // In columns of typed-array chunks: a plain array copied itself whole each time it grew, one
  // step of 10–20 ms at a million term ids that no slicing could split.
  const messageKeys = new NumberColumn('float64');
  const roles = new NumberColumn('int32');
  const starts = new NumberColumn('int32');
  const lengths = new NumberColumn('int32');
  const lineLengths = new NumberColumn('int32');
  const termStarts = new NumberColumn('int32');
  termStarts.push(0);
  const termIds = new NumberColumn('int32');
  const idOf = createTermIds();
  const documentFrequency = new NumberColumn('int32');
  const prefixTerms = new Map<string, string[]>();
  let shortest = Number.POSITIVE_INFINITY;

  /** Adds the sentences of `messages`; `keyOf(index)` names each message in `choose`'s answer. */
  function* add(
    messages: readonly SummarizedMessage[],
    keyOf: (index: number) => number,
  ): Generator<void, void, void> {
    for (const [messageIndex, message] of messages.entries()) {
      yield;
      const role = ROLES.indexOf(message.role as (typeof ROLES)[number]);
      if (role < 0) continue;
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
          const id = idOf(term, documentFrequency.length);
          if (id === documentFrequency.length) documentFrequency.push(0);
          documentFrequency.add(id, 1);
          termIds.push(id);
        }
        termStarts.push(termIds.length);
        messageKeys.push(keyOf(messageIndex));
        roles.push(role);
        starts.push(match.index);
        lengths.push(match[0].length);
        lineLengths.push(line.length);
        shortest = Math.min(shortest, line.length);
      }
    }
  }

  /** Scores every candidate and takes the best that fit beside what stays of `previous`. */
  function* choose(previous: string | null): Generator<void, ExtractiveChoice, void> {
    const count = lineLengths.length;
    const scores = new Float64Array(count);
    for (let index = 0; index < count; index++) {
      if (index % 64 === 0) yield;
      const from = termStarts.at(index);
      const to = termStarts.at(index + 1);
      let weight = 0;
      for (let at = from; at < to; at++) weight += Math.log(1 + count / documentFrequency.at(termIds.at(at)));
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
    const better = (left: number, right: number) =>
      (scores[left] ?? 0) > (scores[right] ?? 0) ||
      ((scores[left] ?? 0) === (scores[right] ?? 0) && left < right);
    const heap = new Int32Array(count);
    for (let index = 0; index < count; index++) {
      if (index % 16_384 === 0) yield;
      heap[index] = index;
    }
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
      const length = lineLengths.at(index);
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
    return {
      kept,
      chosen: chosen.map((index) => ({
        message: messageKeys.at(index),
        role: ROLES[roles.at(index)] ?? 'user',
        start: starts.at(index),
        length: lengths.at(index),
      })),
    };
  }

  return { add, choose };
}

export type ExtractiveCandidates = ReturnType<typeof createExtractiveCandidates>;

/** The summary's text: the kept lines of the previous summary, then a line per chosen sentence. */
export function composeSummary(
  previous: string | null,
  choice: ExtractiveChoice,
  lineOf: (chosen: ChosenSentence) => string,
): string {
  const lines = [...choice.kept, ...choice.chosen.map(lineOf)];
  return lines.length > 0 ? lines.join('\n') : (previous ?? '');
}

/** The summary line of a chosen sentence, from the content of the message it was found in. */
export function chosenLine(content: string, chosen: ChosenSentence): string {
  const sentence = content
    .slice(chosen.start, chosen.start + chosen.length)
    .replace(/\s+/g, ' ')
    .trim();
  return candidateLine(chosen.role, sentence);
}

/** Maps of term ids, a term's map chosen by a hash of it. */
const TERM_SHARDS = 64;

/**
 * Term → id, in `TERM_SHARDS` maps instead of one: a map rehashes all its entries in one step when
 * it grows, 6–24 ms at the ~100,000 distinct terms of a long session's summary; each shard holds a
 * 64th of them. Returns the term's id, giving it `next` if it had none.
 */
function createTermIds(): (term: string, next: number) => number {
  const shards = Array.from({ length: TERM_SHARDS }, () => new Map<string, number>());
  return (term, next) => {
    // FNV-1a over the term's UTF-16 units: terms are short stems.
    let hash = 0x811c9dc5;
    for (let index = 0; index < term.length; index++)
      hash = Math.imul(hash ^ term.charCodeAt(index), 0x01000193);
    const shard = shards[(hash >>> 0) % TERM_SHARDS] as Map<string, number>;
    const id = shard.get(term);
    if (id !== undefined) return id;
    shard.set(term, next);
    return next;
  };
}

/** `- role: sentence`, the sentence cut at MAX_SENTENCE_CHARS. */
function candidateLine(role: string, sentence: string): string {
  const text = sentence.length > MAX_SENTENCE_CHARS ? `${sentence.slice(0, MAX_SENTENCE_CHARS)}…` : sentence;
  return `- ${role}: ${text}`;
}
