import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../schemas/message.js';
import { planSummarization, planSummarizationInSteps } from './plan-summarization.js';

const message = (
  seq: number,
  role: StoredMessage['role'],
  extra: Partial<StoredMessage> = {},
): StoredMessage => ({
  id: `m${seq}`,
  seq,
  role,
  content: role === 'assistant' && extra.toolCalls ? '' : `message ${seq}`,
  createdAt: new Date(seq * 1_000).toISOString(),
  tokenCount: 10,
  tokenEncoding: 'o200k_base',
  ...extra,
});

const costOf = (stored: StoredMessage) => stored.tokenCount;
const policy = { contextWindow: 100, threshold: 0.7, keepRecent: 0.3 };

describe('planSummarizationInSteps', () => {
  it('yields between slices of a long session, and plans what planSummarization plans', () => {
    const messages = Array.from({ length: 10_000 }, (_, index) =>
      message(index + 1, index % 2 ? 'assistant' : 'user'),
    );
    const steps = planSummarizationInSteps(messages, costOf, { ...policy, contextWindow: 50_000 });
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    // The cost sum, the grouping and the cut each yield every 2,048 messages or units.
    expect(yields).toBeGreaterThanOrEqual(3 * Math.floor(10_000 / 2_048) - 1);
    expect(step.value).toEqual(planSummarization(messages, costOf, { ...policy, contextWindow: 50_000 }));
    expect(step.value?.summarize.length).toBeGreaterThan(0);
  });
});

describe('planSummarization', () => {
  it('does nothing under the threshold', () => {
    const messages = Array.from({ length: 7 }, (_, index) =>
      message(index + 1, index % 2 ? 'assistant' : 'user'),
    );
    expect(planSummarization(messages, costOf, policy)).toBeNull();
  });

  it('summarizes the oldest messages and keeps a recent tail within keepRecent', () => {
    const messages = Array.from({ length: 12 }, (_, index) =>
      message(index + 1, index % 2 ? 'assistant' : 'user'),
    );
    const plan = planSummarization(messages, costOf, policy);
    expect(plan?.summarize.map((stored) => stored.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(plan).toMatchObject({ throughSeq: 9, keptTokens: 30 });
  });

  it('never cuts between a tool call and its results', () => {
    const call = { id: 'c1', type: 'function' as const, function: { name: 'f', arguments: '{}' } };
    const messages = [
      ...Array.from({ length: 6 }, (_, index) => message(index + 1, index % 2 ? 'assistant' : 'user')),
      message(7, 'assistant', { toolCalls: [call] }),
      message(8, 'tool', { toolCallId: 'c1' }),
      message(9, 'tool', { toolCallId: 'c1', tokenCount: 1 }),
      message(10, 'assistant'),
    ];
    const plan = planSummarization(messages, costOf, { ...policy, contextWindow: 80, keepRecent: 0.4 });
    expect(plan?.throughSeq).toBe(6);
  });

  it('keeps the newest unit even when it alone exceeds keepRecent', () => {
    const messages = [message(1, 'user'), message(2, 'assistant', { tokenCount: 90 })];
    expect(planSummarization(messages, costOf, policy)).toMatchObject({ throughSeq: 1, keptTokens: 90 });
  });

  it('property: a prefix, the newest message kept, no tool call split from its results', () => {
    const roles = fc.array(fc.constantFrom('user', 'assistant', 'call', 'tool'), {
      minLength: 1,
      maxLength: 40,
    });
    fc.assert(
      fc.property(roles, fc.integer({ min: 1, max: 50 }), (kinds, tokens) => {
        let openCall: string | null = null;
        const messages = kinds.map((kind, index) => {
          const seq = index + 1;
          if (kind === 'call') {
            openCall = `c${seq}`;
            return message(seq, 'assistant', {
              toolCalls: [{ id: openCall, type: 'function', function: { name: 'f', arguments: '{}' } }],
              tokenCount: tokens,
            });
          }
          if (kind === 'tool') {
            // One result per call; a second result is an orphan with an unknown call id.
            const toolCallId = openCall ?? 'none';
            openCall = null;
            return message(seq, 'tool', { toolCallId, tokenCount: tokens });
          }
          openCall = null;
          return message(seq, kind as 'user' | 'assistant', { tokenCount: tokens });
        });
        const plan = planSummarization(messages, costOf, {
          contextWindow: 200,
          threshold: 0.5,
          keepRecent: 0.25,
        });
        if (!plan) return;
        expect(plan.summarize).toEqual(messages.slice(0, plan.summarize.length));
        expect(plan.summarize.length).toBeLessThan(messages.length);
        const summarizedCalls = new Set(
          plan.summarize.flatMap((stored) => stored.toolCalls?.map((c) => c.id) ?? []),
        );
        for (const kept of messages.slice(plan.summarize.length)) {
          if (kept.toolCallId) expect(summarizedCalls.has(kept.toolCallId)).toBe(false);
        }
      }),
    );
  });
});
