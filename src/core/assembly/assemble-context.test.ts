import { beforeAll, describe, expect, it } from 'vitest';
import { ContextBudgetExceededError } from '../errors.js';
import { type MemoryConfigInput, memoryConfigSchema } from '../schemas/agent.js';
import type { StoredMessage } from '../schemas/message.js';
import { memoizeCounter } from '../tokens/memoize-counter.js';
import { resolveModel } from '../tokens/model-registry.js';
import {
  boundedCounter,
  countContentTokens,
  loadTokenCounter,
  type TokenCounter,
} from '../tokens/token-counter.js';
import { type AssembleContextInput, assembleContext } from './assemble-context.js';
import type { MemoryItem } from './memory-source.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter('o200k_base');
});

let seq = 0;
function message(partial: Partial<StoredMessage> & Pick<StoredMessage, 'role' | 'content'>): StoredMessage {
  seq++;
  return {
    id: `m${seq}`,
    seq,
    createdAt: new Date(seq * 1000).toISOString(),
    tokenEncoding: 'o200k_base',
    tokenCount: countContentTokens(counter, partial),
    ...partial,
  };
}

function input(
  overrides: Partial<AssembleContextInput> & { config?: MemoryConfigInput } = {},
): AssembleContextInput {
  const { config, ...rest } = overrides;
  return {
    systemPrompt: 'You are a helpful assistant.',
    memory: memoryConfigSchema.parse({ maxWorkingMemoryTokens: 2_000, reservedOutputTokens: 200, ...config }),
    model: resolveModel('gpt-4o'),
    counter,
    currentMessage: 'What is our vacation policy?',
    summary: null,
    history: [],
    olderNotRead: 0,
    retrieved: { procedure: [], knowledge: [], episodes: [] },
    sourceReports: [],
    ...rest,
  };
}

const knowledge = (id: string, score: number, extra: Partial<MemoryItem> = {}): MemoryItem => ({
  id,
  text: `Fact ${id}: employees get 25 days of paid vacation per year.`,
  score,
  ...extra,
});

describe('assembleContext', () => {
  it('builds the six sections in order with source attribution', () => {
    const history = [
      message({ role: 'user', content: 'Hi' }),
      message({ role: 'assistant', content: 'Hello!' }),
    ];
    const { messages, trace } = assembleContext(
      input({
        history,
        retrieved: {
          procedure: [{ id: 'p1', text: '1. Check the policy.\n2. Answer.', score: 0.9 }],
          knowledge: [knowledge('k1', 0.8, { source: 'HR Policy 2025.md' })],
          episodes: [{ id: 'e1', text: 'User asked about sick leave.', score: 0.7, date: '2026-01-02' }],
        },
      }),
    );
    expect(messages.map((entry) => entry.section)).toEqual([
      'system',
      'procedure',
      'knowledge',
      'episodes',
      'history',
      'history',
      'current',
    ]);
    expect(messages[2]?.content).toContain('(Source: HR Policy 2025.md)');
    expect(messages[3]?.content).toContain('[2026-01-02] User asked about sick leave.');
    expect(trace.sections.map((section) => section.name)).toEqual([
      'system',
      'procedure',
      'knowledge',
      'episodes',
      'history',
      'current',
    ]);
    expect(trace.budget.used).toBe(trace.sections.reduce((sum, section) => sum + section.tokens, 3));
  });

  it('explains every excluded memory', () => {
    const { trace } = assembleContext(
      input({
        config: { minRelevance: { knowledge: 0.5 }, semanticTopK: 2, sectionCaps: { knowledge: 45 } },
        removedIds: new Set(['removed']),
        retrieved: {
          procedure: [],
          knowledge: [
            knowledge('best', 0.95),
            knowledge('second', 0.9),
            knowledge('removed', 0.99),
            knowledge('old', 0.9, { supersededBy: 'best' }),
            knowledge('weak', 0.1),
            knowledge('third', 0.8),
            knowledge('best', 0.7),
          ],
          episodes: [],
        },
      }),
    );
    const reasons = Object.fromEntries(
      (trace.sections.find((section) => section.name === 'knowledge')?.items ?? []).map((item) => [
        `${item.id}@${item.score}`,
        item.reason,
      ]),
    );
    expect(reasons).toEqual({
      'removed@0.99': 'removed_by_user',
      'best@0.95': 'included',
      'second@0.9': 'section_cap',
      'old@0.9': 'superseded',
      'third@0.8': 'over_limit',
      'best@0.7': 'duplicate',
      'weak@0.1': 'below_threshold',
    });
  });

  it('includes pinned memories beyond the top-K and the threshold, first, within the budget', () => {
    const retrieved = (pinnedIds?: Set<string>) =>
      assembleContext(
        input({
          config: { minRelevance: { knowledge: 0.5 }, semanticTopK: 1 },
          ...(pinnedIds ? { pinnedIds } : {}),
          retrieved: {
            procedure: [],
            knowledge: [knowledge('best', 0.95), knowledge('pinned', 0.3), knowledge('other', 0.8)],
            episodes: [],
          },
        }),
      ).trace.sections.find((section) => section.name === 'knowledge')?.items ?? [];
    const reasons = (items: { id: string; reason: string }[]) =>
      Object.fromEntries(items.map((item) => [item.id, item.reason]));
    expect(reasons(retrieved())).toEqual({
      best: 'included',
      other: 'over_limit',
      pinned: 'below_threshold',
    });
    const pinned = retrieved(new Set(['pinned']));
    expect(reasons(pinned)).toEqual({ pinned: 'included', best: 'included', other: 'over_limit' });
    expect(pinned[0]?.id).toBe('pinned');
  });

  it('throws context_budget_exceeded when system prompt and message alone do not fit', () => {
    const call = () => assembleContext(input({ currentMessage: 'word '.repeat(2_000) }));
    expect(call).toThrow(ContextBudgetExceededError);
    try {
      call();
    } catch (error) {
      expect((error as ContextBudgetExceededError).code).toBe('context_budget_exceeded');
    }
  });

  it('drop-oldest keeps whole newest turns and records older ones as over budget', () => {
    const history = Array.from({ length: 40 }, (_, index) =>
      message({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `turn ${index} ${'blah '.repeat(20)}`,
      }),
    );
    const { messages, trace } = assembleContext(
      input({ history, config: { sectionCaps: { history: 300 } } }),
    );
    const kept = messages.filter((entry) => entry.section === 'history');
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length % 2).toBe(0);
    expect(kept[0]?.role).toBe('user');
    expect(kept.at(-1)?.id).toBe(history.at(-1)?.id);
    const historyTrace = trace.sections.find((section) => section.name === 'history');
    expect(historyTrace?.tokens).toBeLessThanOrEqual(300);
    // The next older turn would not have fitted: the kept history is maximal.
    const olderTurnCost = (historyTrace?.items ?? [])
      .filter((item) => !item.included)
      .slice(-2)
      .reduce((sum, item) => sum + item.tokens, 0);
    expect((historyTrace?.tokens ?? 0) + olderTurnCost).toBeGreaterThan(300);
  });

  it('sliding-window keeps only the last N turns even with budget to spare', () => {
    const history = Array.from({ length: 10 }, (_, index) =>
      message({ role: index % 2 === 0 ? 'user' : 'assistant', content: `short ${index}` }),
    );
    const { messages, trace } = assembleContext(
      input({ history, config: { pruningStrategy: 'sliding-window', slidingWindowTurns: 2 } }),
    );
    expect(messages.filter((entry) => entry.section === 'history').map((entry) => entry.id)).toEqual(
      history.slice(-4).map((entry) => entry.id),
    );
    const reasons = trace.sections
      .find((section) => section.name === 'history')
      ?.items.map((item) => item.reason);
    expect(reasons?.filter((reason) => reason === 'outside_window')).toHaveLength(6);
  });

  it('summarize puts the running summary in front of the kept tail', () => {
    const history = [message({ role: 'user', content: 'Latest question' })];
    const { messages } = assembleContext(
      input({
        history,
        summary: 'The user is planning a trip to Lisbon.',
        config: { pruningStrategy: 'summarize' },
      }),
    );
    const historyMessages = messages.filter((entry) => entry.section === 'history');
    expect(historyMessages[0]).toMatchObject({ role: 'system' });
    expect(historyMessages[0]?.content).toContain('The user is planning a trip to Lisbon.');
    expect(historyMessages[1]?.content).toBe('Latest question');
  });

  it('never sends a tool result whose call is outside the history, nor splits a call from its results', () => {
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'weather', arguments: '{}' } };
    const history = [
      message({ role: 'tool', content: 'orphan result', toolCallId: 'call_0' }),
      message({ role: 'user', content: 'Weather?' }),
      message({ role: 'assistant', content: '', toolCalls: [call] }),
      message({ role: 'tool', content: 'Sunny', toolCallId: 'call_1' }),
      message({ role: 'assistant', content: 'It is sunny.' }),
    ];
    const { messages, trace } = assembleContext(input({ history }));
    const ids = messages.filter((entry) => entry.section === 'history').map((entry) => entry.id);
    expect(ids).toEqual(history.slice(1).map((entry) => entry.id));
    expect(trace.sections.find((section) => section.name === 'history')?.items[0]?.reason).toBe(
      'orphan_tool_result',
    );
  });

  it('recounts messages cached in another encoding and says so in the trace', () => {
    const history = [
      { ...message({ role: 'user', content: 'hello there' }), tokenEncoding: 'cl100k_base', tokenCount: 999 },
    ];
    const { trace } = assembleContext(input({ history }));
    expect(trace.history.recounted).toBe(1);
    expect(trace.history.kept).toBe(1);
  });

  it('recounts a message of another encoding with its tool calls, so the budget holds', () => {
    const args = JSON.stringify({ rows: Array.from({ length: 300 }, (_, index) => `row ${index} alpha`) });
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'lookup', arguments: args } };
    // Written under cl100k: the stored count is not this encoding's, so assembly counts again.
    const other = (entry: StoredMessage) => ({ ...entry, tokenEncoding: 'cl100k_base', tokenCount: 1 });
    const history = [
      other(message({ role: 'user', content: 'Look it up.' })),
      other(message({ role: 'assistant', content: '', toolCalls: [call] })),
      other(message({ role: 'tool', content: 'ok', toolCallId: 'call_1' })),
      other(message({ role: 'assistant', content: 'Done.' })),
    ];
    const { trace } = assembleContext(
      input({ history, config: { maxWorkingMemoryTokens: 900, reservedOutputTokens: 100 } }),
    );
    // The tool call alone is well over the 800 available: of the turn, only its last answer fits.
    expect(countContentTokens(counter, history[1] as StoredMessage)).toBeGreaterThan(800);
    expect(trace.history.kept).toBe(1);
    expect(trace.budget.used).toBeLessThanOrEqual(trace.budget.available);
    expect(trace.history.recounted).toBe(4);
  });

  it('tokenizes each retrieved line once: choosing it and confirming the section share the count', () => {
    const seen: string[] = [];
    const recording: TokenCounter = {
      encoding: counter.encoding,
      count: (text) => {
        seen.push(text);
        return counter.count(text);
      },
    };
    const items = ['a', 'b', 'c'].map((id, index) => knowledge(id, 1 - index / 10));
    const { trace } = assembleContext(
      input({
        counter: memoizeCounter(recording),
        retrieved: { procedure: [], knowledge: items, episodes: [] },
      }),
    );
    expect(
      trace.sections.find((section) => section.name === 'knowledge')?.items.map((item) => item.included),
    ).toEqual([true, true, true]);
    for (const item of items) {
      expect(seen.filter((text) => text.includes(item.text))).toHaveLength(item.id === 'c' ? 2 : 1);
    }
  });

  it('marks the context degraded when a source failed', () => {
    const { trace } = assembleContext(
      input({
        sourceReports: [
          { name: 'semantic', section: 'knowledge', status: 'timeout', durationMs: 500, itemCount: 0 },
        ],
      }),
    );
    expect(trace.degraded).toBe(true);
  });

  it('counts a memory only as far as the room in its section: the cost follows the budget, not the memory', () => {
    // 50 candidates of 200,000 characters each (10 MB), a small knowledge section, and one that fits.
    const seen = { chars: 0 };
    const spy = memoizeCounter(
      boundedCounter('o200k_base', (piece) => {
        seen.chars += piece.length;
        return counter.count(piece);
      }),
    );
    const long = 'Employees may carry over unused vacation days into the next year. '.repeat(3_000);
    const items = [
      ...Array.from({ length: 50 }, (_, index) => knowledge(`long${index}`, 0.9, { text: long })),
      knowledge('short', 0.5),
    ];
    const result = assembleContext(
      input({
        counter: spy,
        retrieved: { procedure: [], knowledge: items, episodes: [] },
        config: { maxWorkingMemoryTokens: 8_000, reservedOutputTokens: 1_000, semanticTopK: 51 },
      }),
    );
    const section = result.trace.sections.find((entry) => entry.name === 'knowledge');
    const fates = section?.items.map((item) => [item.id, item.included, item.reason]);
    expect(fates?.filter(([, included]) => included)).toEqual([['short', true, 'included']]);
    // Every long one is too large for the section (30 % of 7,000 tokens): section_cap, and its
    // tokens a lower bound above the room there was.
    for (const item of section?.items.filter((entry) => entry.id.startsWith('long')) ?? []) {
      expect(item.reason).toBe('section_cap');
      expect(item.tokens).toBeGreaterThan(2_000);
    }
    // Counted in full, the 50 lines are 10,000,000 characters; as far as the budget, a few pieces each.
    expect(seen.chars).toBeLessThan(50 * 10 * 4_096);
  });

  it('decides as a full count would when a line fits the whole budget but not the section', () => {
    const medium = 'Carry-over days expire at the end of March. '.repeat(60);
    const exactCounter: TokenCounter = { encoding: counter.encoding, count: (text) => counter.count(text) };
    const run = (using: TokenCounter) =>
      assembleContext(
        input({
          counter: using,
          retrieved: { procedure: [], knowledge: [knowledge('medium', 0.9, { text: medium })], episodes: [] },
          config: { sectionCaps: { knowledge: 100 } },
        }),
      ).trace.sections.find((entry) => entry.name === 'knowledge')?.items;
    const items = run(counter);
    expect(items).toEqual(run(exactCounter));
    expect(items?.[0]).toMatchObject({ included: false, reason: 'section_cap' });
  });
});
