import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ContextBudgetExceededError } from '../errors.js';
import { memoryConfigSchema } from '../schemas/agent.js';
import type { StoredMessage } from '../schemas/message.js';
import { resolveModel } from '../tokens/model-registry.js';
import { countContentTokens, loadTokenCounter, type TokenCounter } from '../tokens/token-counter.js';
import { assembleContext, countContextTokens } from './assemble-context.js';
import type { MemoryItem } from './memory-source.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter('o200k_base');
});

const SECTION_ORDER = ['system', 'procedure', 'knowledge', 'episodes', 'history', 'current'];
const word = fc.constantFrom(
  'alpha',
  'beta',
  'the',
  'quick',
  'fox',
  '数据',
  'émoji🙂',
  '{"a":1}',
  '\n',
  'x'.repeat(40),
);
const text = fc.array(word, { minLength: 1, maxLength: 60 }).map((words) => words.join(' '));

type TurnShape = { user: string; calls: string[][]; reply: string | null };
const turn: fc.Arbitrary<TurnShape> = fc.record({
  user: text,
  calls: fc.array(fc.array(text, { minLength: 1, maxLength: 2 }), { maxLength: 2 }),
  reply: fc.option(text),
});

/** Builds a realistic history: user turns with tool-call rounds; the fetched tail may start mid-turn. */
function buildHistory(turns: TurnShape[], dropLeading: number): StoredMessage[] {
  const messages: StoredMessage[] = [];
  const push = (
    message: Omit<StoredMessage, 'seq' | 'id' | 'tokenCount' | 'tokenEncoding' | 'createdAt'>,
  ) => {
    const seq = messages.length + 1;
    messages.push({
      ...message,
      id: `m${seq}`,
      seq,
      createdAt: new Date(seq * 1000).toISOString(),
      tokenCount: countContentTokens(counter, message),
      tokenEncoding: 'o200k_base',
    });
  };
  turns.forEach((shape, turnIndex) => {
    push({ role: 'user', content: shape.user });
    shape.calls.forEach((results, round) => {
      const toolCalls = results.map((_, index) => ({
        id: `call_${turnIndex}_${round}_${index}`,
        type: 'function' as const,
        function: { name: 'lookup', arguments: '{"q":"x"}' },
      }));
      push({ role: 'assistant', content: '', toolCalls });
      results.forEach((result, index) => {
        push({ role: 'tool', content: result, toolCallId: `call_${turnIndex}_${round}_${index}` });
      });
    });
    if (shape.reply !== null) push({ role: 'assistant', content: shape.reply });
  });
  return messages.slice(Math.min(dropLeading, messages.length));
}

const item = (prefix: string) =>
  fc.record({
    id: fc.integer({ min: 0, max: 30 }).map((n) => `${prefix}${n}`),
    text,
    score: fc.double({ min: 0, max: 1, noNaN: true }),
    source: fc.option(fc.constantFrom('HR Policy 2025.md', 'notes.txt'), { nil: undefined }),
    supersededBy: fc.option(fc.constant('newer'), { nil: undefined }),
  }) as fc.Arbitrary<MemoryItem>;

const scenario = fc.record({
  turns: fc.array(turn, { maxLength: 12 }),
  dropLeading: fc.nat({ max: 4 }),
  systemPrompt: text,
  current: text,
  summary: fc.option(text),
  budget: fc.integer({ min: 64, max: 3_000 }),
  reservedShare: fc.double({ min: 0, max: 0.9, noNaN: true }),
  strategy: fc.constantFrom('drop-oldest', 'sliding-window', 'summarize') as fc.Arbitrary<
    'drop-oldest' | 'sliding-window' | 'summarize'
  >,
  window: fc.integer({ min: 1, max: 5 }),
  caps: fc.record({
    knowledge: fc.option(fc.nat({ max: 1_500 }), { nil: undefined }),
    history: fc.option(fc.nat({ max: 1_500 }), { nil: undefined }),
  }),
  model: fc.constantFrom('gpt-4o', 'claude-sonnet-4-5'),
  procedures: fc.uniqueArray(item('p'), { maxLength: 3, selector: (entry) => entry.id }),
  knowledge: fc.uniqueArray(item('k'), { maxLength: 8, selector: (entry) => entry.id }),
  episodes: fc.uniqueArray(item('e'), { maxLength: 4, selector: (entry) => entry.id }),
  removed: fc.array(
    fc.integer({ min: 0, max: 30 }).map((n) => `k${n}`),
    { maxLength: 3 },
  ),
});

describe('assembleContext properties', () => {
  it('never exceeds the budget, keeps system + current, fixed order, tool calls whole, newest history', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const memory = memoryConfigSchema.parse({
          maxWorkingMemoryTokens: s.budget,
          reservedOutputTokens: Math.floor(s.budget * s.reservedShare),
          model: s.model,
          pruningStrategy: s.strategy,
          slidingWindowTurns: s.window,
          sectionCaps: s.caps,
        });
        const model = resolveModel(s.model);
        const history = buildHistory(s.turns, s.dropLeading);
        const input = {
          systemPrompt: s.systemPrompt,
          memory,
          model,
          counter,
          currentMessage: s.current,
          summary: s.summary,
          history,
          olderNotRead: 0,
          retrieved: { procedure: s.procedures, knowledge: s.knowledge, episodes: s.episodes },
          sourceReports: [],
          removedIds: new Set(s.removed),
        };
        const available = memory.maxWorkingMemoryTokens - memory.reservedOutputTokens;
        let result: ReturnType<typeof assembleContext>;
        try {
          result = assembleContext(input);
        } catch (error) {
          // Only allowed when the mandatory parts alone do not fit.
          expect(error).toBeInstanceOf(ContextBudgetExceededError);
          const mandatory = countContextTokens(
            [
              { role: 'system', content: s.systemPrompt, section: 'system' },
              { role: 'user', content: s.current, section: 'current' },
            ],
            counter,
            model,
          );
          expect(mandatory).toBeGreaterThan(available);
          return;
        }
        const { messages, trace } = result;

        // Counting lines only as far as the budget left decides exactly as full counts do.
        const plain: TokenCounter = { encoding: counter.encoding, count: (value) => counter.count(value) };
        const full = assembleContext({ ...input, counter: plain });
        expect(messages).toEqual(full.messages);
        const fates = (sections: typeof trace.sections) =>
          sections.map((section) =>
            section.items.map((entry) => [
              entry.id,
              entry.included,
              entry.reason,
              entry.included && entry.tokens,
            ]),
          );
        expect(fates(trace.sections)).toEqual(fates(full.trace.sections));

        // Never over budget, counted from scratch; and the trace agrees with the count.
        const total = countContextTokens(messages, counter, model);
        expect(total).toBeLessThanOrEqual(available);
        expect(trace.budget.used).toBe(total);

        // System prompt first, current message last, both verbatim.
        expect(messages[0]).toMatchObject({ role: 'system', content: s.systemPrompt, section: 'system' });
        expect(messages.at(-1)).toMatchObject({ role: 'user', content: s.current, section: 'current' });

        // Fixed section order.
        const order = messages.map((message) => SECTION_ORDER.indexOf(message.section));
        expect(order).toEqual([...order].sort((a, b) => a - b));

        // No removed, superseded or duplicated memory is included.
        const included = trace.sections.flatMap((section) => section.items).filter((entry) => entry.included);
        const memoryIds = included.filter((entry) => entry.kind === 'memory').map((entry) => entry.id);
        for (const id of memoryIds) expect(s.removed).not.toContain(id);
        const byId = new Map(
          [...s.procedures, ...s.knowledge, ...s.episodes].map((entry) => [entry.id, entry]),
        );
        for (const id of memoryIds) expect(byId.get(id)?.supersededBy).toBeUndefined();

        // Tool calls and their results stay together and in order.
        const kept = messages.filter((message) => message.section === 'history' && message.id !== undefined);
        kept.forEach((message, index) => {
          if (message.role === 'assistant' && message.toolCalls) {
            const results = kept.slice(index + 1, index + 1 + message.toolCalls.length);
            expect(results.map((result) => result.toolCallId)).toEqual(
              message.toolCalls.map((call) => call.id),
            );
          }
          if (message.role === 'tool') {
            const call = kept
              .slice(0, index)
              .reverse()
              .find((candidate) => candidate.role !== 'tool');
            expect(call?.toolCalls?.some((entry) => entry.id === message.toolCallId)).toBe(true);
          }
        });

        // History is a contiguous suffix of the stored history: the newest turns are kept.
        const keptIds = kept.map((message) => message.id);
        const suffix = history.slice(history.length - keptIds.length).map((message) => message.id);
        if (keptIds.length > 0) expect(keptIds).toEqual(suffix);
      }),
      { numRuns: 300 },
    );
  });
});
