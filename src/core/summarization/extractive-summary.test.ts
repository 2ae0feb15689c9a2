import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeText } from '../text/analyze-text.js';
import { extractiveSummary, type SummarizedMessage } from './extractive-summary.js';

// The summary as it was first written (objects, strings and a set of terms per candidate), kept
// as the oracle of the leaner one: both must give the same summary, byte for byte.
const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g;
const MAX_SENTENCE_CHARS = 300;
interface Candidate {
  order: number;
  text: string;
  score: number;
}

function* referenceSteps(
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

function reference(
  previous: string | null,
  messages: readonly SummarizedMessage[],
  maxChars = 4_000,
): string {
  const steps = referenceSteps(previous, messages, maxChars);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

describe('extractiveSummary', () => {
  const messages = [
    { role: 'user', content: 'Hi there! My flight to Lisbon leaves on March 3rd. Thanks.' },
    { role: 'assistant', content: 'Great. I booked a window seat on TAP flight 204 for you.' },
    { role: 'tool', content: 'internal tool output that is never summarized' },
    { role: 'user', content: 'Ok. Also my daughter Ana is allergic to peanuts.' },
  ];

  it('keeps specific sentences in order, with their roles, and leaves out tool output', () => {
    const summary = extractiveSummary(null, messages);
    const lines = summary.split('\n');
    expect(lines).toContain('- user: My flight to Lisbon leaves on March 3rd.');
    expect(lines).toContain('- user: Also my daughter Ana is allergic to peanuts.');
    expect(lines.indexOf('- user: My flight to Lisbon leaves on March 3rd.')).toBeLessThan(
      lines.indexOf('- user: Also my daughter Ana is allergic to peanuts.'),
    );
    expect(summary).not.toContain('tool output');
  });

  it('prefers specific sentences over small talk when space is short', () => {
    const summary = extractiveSummary(null, messages, 120);
    expect(summary.length).toBeLessThanOrEqual(120);
    expect(summary).not.toContain('Thanks');
    expect(summary).toMatch(/Lisbon|peanuts|TAP/);
  });

  it('merges with the previous summary and never returns less than it had when nothing new is informative', () => {
    const previous = '- user: Lives in Oslo.';
    expect(extractiveSummary(previous, [{ role: 'user', content: 'Oh yes.' }])).toBe(previous);
    const merged = extractiveSummary(previous, messages);
    expect(merged.startsWith(previous)).toBe(true);
    expect(merged).toContain('Lisbon');
  });

  it('stays within maxChars by dropping the oldest previous lines first', () => {
    const previous = Array.from({ length: 50 }, (_, index) => `- user: old fact number ${index}`).join('\n');
    const merged = extractiveSummary(previous, messages, 400);
    expect(merged.length).toBeLessThanOrEqual(400);
    expect(merged).toContain('old fact number 49');
    expect(merged).not.toContain('old fact number 0\n');
    expect(merged).toContain('Lisbon');
  });

  it('gives the summary of its first, plainer implementation, byte for byte', () => {
    const word = fc.constantFrom(
      'flight',
      'Lisbon',
      'peanuts',
      'the',
      'a',
      'is',
      'café',
      'naïve',
      "Ana's",
      'don’t',
      '204',
      'x',
      'allergic',
      'booked',
      'window',
      'seat',
      'hi',
      'ok',
      'user',
      'assistant',
      'Ｆｕｌｌ',
      'e\u0301',
    );
    const separator = fc.constantFrom(' ', ' ', ', ', '. ', '! ', '? ', '\n', '  ', ':', '…', '-');
    const content = fc
      .array(fc.tuple(word, separator), { maxLength: 60 })
      .map((parts) => parts.map(([w, s]) => w + s).join(''));
    const long = fc.tuple(word, fc.integer({ min: 40, max: 90 })).map(([w, n]) => `${`${w} `.repeat(n)}end.`);
    const message = fc.record({
      role: fc.constantFrom('user', 'assistant', 'assistant', 'tool', 'system'),
      content: fc.oneof(content, content, long),
    });
    const previous = fc.option(
      content.map((text) => text.replace(/[.!?]/g, '\n')),
      { nil: null },
    );
    fc.assert(
      fc.property(
        previous,
        fc.array(message, { maxLength: 30 }),
        fc.integer({ min: 20, max: 6_000 }),
        (prior, batch, maxChars) => {
          expect(extractiveSummary(prior, batch, maxChars)).toBe(reference(prior, batch, maxChars));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('decides whether a long sentence says anything from its first 1,200 characters', () => {
    // A megabyte-long sentence is not analyzed whole: one step of the summary would hold the loop.
    const late = `${'of '.repeat(500)}Lisbon.`;
    const early = `Lisbon ${'x'.repeat(900_000)}.`;
    expect(extractiveSummary(null, [{ role: 'user', content: late }])).toBe('');
    expect(extractiveSummary(null, [{ role: 'user', content: early }])).toMatch(/^- user: Lisbon x+…$/);
  });
});
