import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessageInput } from '../../core/schemas/message.js';
import { extractiveSummary } from '../../core/summarization/extractive-summary.js';
import { planSummarization } from '../../core/summarization/plan-summarization.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createSessionOperations } from './session-operations.js';
import { toSessionKey } from './session-ref.js';
import { extractiveSummaryInPages, planCutInPages } from './summary-pages.js';

const words = ['Lisbon', 'castle', 'the', 'river', 'pastries', 'train', 'at', 'noon', 'Porto', 'wine'];

/** A step of a conversation: a plain message, or an assistant's tool calls and some of their results. */
const step = fc.oneof(
  fc.record({
    kind: fc.constantFrom('user', 'assistant', 'system'),
    words: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 12 }),
    ending: fc.constantFrom('.', '!', '?', ''),
  }),
  fc.record({
    kind: fc.constant('tools'),
    calls: fc.integer({ min: 1, max: 3 }),
    // Results answer calls by index; an index past the calls is a result whose call is unknown.
    results: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 }),
  }),
);

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function messagesOf(steps: Step[]): MessageInput[] {
  const messages: MessageInput[] = [];
  steps.forEach((item, index) => {
    if (item.kind === 'tools') {
      const ids = Array.from({ length: item.calls }, (_, call) => `call-${index}-${call}`);
      messages.push({
        role: 'assistant',
        content: '',
        toolCalls: ids.map((id) => ({ id, type: 'function', function: { name: 'lookup', arguments: '{}' } })),
      });
      for (const result of item.results)
        messages.push({ role: 'tool', content: `result ${result}`, toolCallId: `call-${index}-${result}` });
      return;
    }
    messages.push({ role: item.kind, content: `${item.words.join(' ')}${item.ending}` });
  });
  return messages;
}

async function sessionOf(messages: MessageInput[]) {
  const store = createMemoryStore();
  const sessions = createSessionOperations(
    store,
    { encoding: 'o200k_base', count: (text) => text.length },
    () => new Date(),
  );
  await sessions.put({ sessionId: 's' }, { messages });
  const key = toSessionKey({ sessionId: 's' });
  return { store, key, stored: await store.readMessages(key, { order: 'oldest-first' }) };
}

const costOf = (message: { tokenCount: number }) => message.tokenCount + 3;
const pause = () => undefined;

describe('planCutInPages', () => {
  it('cuts where planSummarization cuts over the whole session, whatever the page size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 400 }),
        fc.nat(),
        async (steps, pageMessages, keepBudget, skip) => {
          const { store, key, stored } = await sessionOf(messagesOf(steps));
          const afterSeq = (stored[skip % stored.length]?.seq ?? 1) - 1;
          const unsummarized = stored.filter((message) => message.seq > afterSeq);
          // A threshold of 0 plans whenever there is anything: only the cut is compared.
          const plan = planSummarization(unsummarized, costOf, {
            contextWindow: 1,
            threshold: 0,
            keepRecent: keepBudget,
          });
          const cut = await planCutInPages(store, key, { afterSeq, costOf, keepBudget, pause, pageMessages });
          expect(cut).toEqual(plan ? { throughSeq: plan.throughSeq, keptTokens: plan.keptTokens } : null);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('extractiveSummaryInPages', () => {
  it('gives extractiveSummary over the range, read a page at a time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.option(fc.constantFrom('- user: likes trains', '- user: a\n- assistant: b'), { nil: null }),
        fc.nat(),
        fc.nat(),
        async (steps, pageMessages, previous, from, to) => {
          const { store, key, stored } = await sessionOf(messagesOf(steps));
          const [first, last] = [from % stored.length, to % stored.length].sort((a, b) => a - b) as [
            number,
            number,
          ];
          const range = {
            afterSeq: (stored[first]?.seq ?? 1) - 1,
            throughSeq: stored[last]?.seq ?? 0,
            pageMessages,
          };
          const expected = extractiveSummary(previous, stored.slice(first, last + 1));
          expect(await extractiveSummaryInPages(store, key, previous, range, pause)).toEqual({
            context: expected,
            messages: last - first + 1,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('answers null when a chosen message is gone (the session was replaced meanwhile)', async () => {
    const { store, key } = await sessionOf([
      { role: 'user', content: 'The castle in Lisbon opens at noon.' },
      { role: 'assistant', content: 'Porto has the best wine.' },
    ]);
    const readMessages = store.readMessages.bind(store);
    let reads = 0;
    store.readMessages = async (readKey, query) => {
      reads++;
      // The read-back of the chosen sentences (after the one page) finds nothing.
      return reads === 1 ? readMessages(readKey, query) : [];
    };
    expect(
      await extractiveSummaryInPages(store, key, null, { afterSeq: 0, throughSeq: 2 }, pause),
    ).toBeNull();
  });
});
