import fc from 'fast-check';
import { encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PIECE_CHARS, MAX_RUN_CHARS } from './bounded-pieces.js';
import { memoizeCounter } from './memoize-counter.js';
import { resolveModel } from './model-registry.js';
import {
  boundedCounter,
  countContentTokens,
  countContentTokensInSlices,
  countSteps,
  countUpTo,
  isShortMessage,
  loadTokenCounter,
  MESSAGE_OVERHEAD_TOKENS,
  messageCost,
  REPLY_PRIMING_TOKENS,
  type TokenCounter,
} from './token-counter.js';

describe('token counting', () => {
  it('matches gpt-tokenizer chat counting: content + per-message overhead + reply priming', async () => {
    const counter = await loadTokenCounter('o200k_base');
    const chat = [
      { role: 'system' as const, content: 'You are terse.' },
      { role: 'user' as const, content: 'What is the capital of France? Answer in one word.' },
      { role: 'assistant' as const, content: 'Paris.' },
    ];
    const ours =
      chat.reduce((sum, message) => sum + countContentTokens(counter, message) + MESSAGE_OVERHEAD_TOKENS, 0) +
      REPLY_PRIMING_TOKENS;
    expect(ours).toBe(encodeChat(chat, 'gpt-4o').length);
  });

  it('counts special-token text in user content as plain text instead of throwing', async () => {
    const counter = await loadTokenCounter('o200k_base');
    expect(counter.count('<|endoftext|> and <|im_start|>')).toBeGreaterThan(2);
  });

  it('counts tool calls and names', async () => {
    const counter = await loadTokenCounter('cl100k_base');
    const plain = countContentTokens(counter, { content: 'x' });
    const withCall = countContentTokens(counter, {
      content: 'x',
      name: 'bob',
      toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"a"}' } }],
    });
    expect(withCall).toBeGreaterThan(plain + 4);
  });

  it('counts a message in slices as in one step, on both sides of the short-message bound, whatever the runs', async () => {
    const counter = await loadTokenCounter('o200k_base');
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'f', arguments: '{"a":1}' } };
    const texts = [
      'a'.repeat(MAX_RUN_CHARS),
      'a'.repeat(MAX_RUN_CHARS + 1),
      'word '.repeat(MAX_PIECE_CHARS / 5),
      `${'word '.repeat(MAX_PIECE_CHARS / 5)}x`,
      'é😀'.repeat(MAX_PIECE_CHARS),
    ];
    let paused = 0;
    const pause = async () => {
      paused++;
    };
    for (const content of texts) {
      for (const message of [{ content }, { content, name: 'ada' }, { content, toolCalls: [call] }]) {
        const short = content.length <= MAX_PIECE_CHARS && !('toolCalls' in message);
        expect(isShortMessage(message)).toBe(short);
        expect(await countContentTokensInSlices(counter, message, pause)).toBe(
          countContentTokens(counter, message),
        );
      }
    }
    // Only the texts longer than one piece were counted piece by piece.
    expect(paused).toBeGreaterThan(0);
  });

  it('applies the approximation factor rounding up, never down', () => {
    expect(messageCost(10, resolveModel('gpt-4o'))).toBe(10 + MESSAGE_OVERHEAD_TOKENS);
    expect(messageCost(10, resolveModel('claude-sonnet-4-5'))).toBe(12 + MESSAGE_OVERHEAD_TOKENS);
    expect(messageCost(11, resolveModel('claude-sonnet-4-5'))).toBe(14 + MESSAGE_OVERHEAD_TOKENS);
  });
});

describe('model registry', () => {
  it.each([
    ['gpt-4o', 'o200k_base', 128_000],
    ['gpt-4o-mini-2024-07-18', 'o200k_base', 128_000],
    ['gpt-4.1-nano', 'o200k_base', 1_047_576],
    ['gpt-5', 'o200k_base', 400_000],
    ['gpt-5-mini', 'o200k_base', 400_000],
    ['o1-mini', 'o200k_base', 128_000],
    ['o3', 'o200k_base', 200_000],
    ['o4-mini', 'o200k_base', 200_000],
    ['gpt-4', 'cl100k_base', 8_192],
    ['gpt-4-turbo', 'cl100k_base', 128_000],
    ['gpt-3.5-turbo', 'cl100k_base', 16_385],
  ])('resolves OpenAI model %s exactly', (name, encoding, window) => {
    const model = resolveModel(name);
    expect(model).toMatchObject({ encoding, contextWindow: window, approximationFactor: 1 });
  });

  it('approximates other families with a documented factor above 1', () => {
    for (const name of [
      'claude-3-5-haiku-latest',
      'gemini-2.5-pro',
      'llama-3.1-8b',
      'mistral-large',
      'qwen2.5',
    ]) {
      expect(resolveModel(name).approximationFactor).toBeGreaterThan(1);
    }
  });

  it('rejects unknown models with a validation error naming the model', () => {
    expect(() => resolveModel('gpt-17-ultra')).toThrowError(/Unknown model "gpt-17-ultra"/);
    expect(() => resolveModel('')).toThrowError(/Unknown model/);
  });
});

let exact: TokenCounter;
beforeAll(async () => {
  exact = await loadTokenCounter('o200k_base');
});

/** A bounded counter over the real encoder that records how many characters it was handed. */
function spyCounter() {
  const seen = { chars: 0 };
  const counter = boundedCounter('o200k_base', (piece) => {
    seen.chars += piece.length;
    return exact.count(piece);
  });
  return { counter, seen };
}

const word = fc.constantFrom(
  'alpha',
  'the',
  'fox',
  '数据',
  '🙂',
  '\n',
  ' ',
  'x'.repeat(300),
  'y'.repeat(5_000),
);
const text = fc.array(word, { maxLength: 80 }).map((words) => words.join(''));

describe('countUpTo', () => {
  it('is the exact count when that is at most the limit, else a number above the limit', () => {
    fc.assert(
      fc.property(text, fc.nat({ max: 3_000 }), (value, limit) => {
        for (const counter of [
          spyCounter().counter,
          memoizeCounter(spyCounter().counter, { minLength: 1 }),
        ]) {
          const whole = counter.count(value);
          const upTo = countUpTo(counter, value, limit);
          if (whole <= limit) expect(upTo).toBe(whole);
          else expect(upTo).toBeGreaterThan(limit);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('counts only as far as the limit: a megabyte over a small limit is never tokenized whole', () => {
    const long = 'The quick brown fox jumps over the lazy dog. '.repeat(25_000);
    for (const wrap of [
      (counter: TokenCounter) => counter,
      (counter: TokenCounter) => memoizeCounter(counter),
    ]) {
      const { counter, seen } = spyCounter();
      expect(countUpTo(wrap(counter), long, 100)).toBeGreaterThan(100);
      // Each piece of at most 4,096 characters holds hundreds of tokens: the second passes 100.
      expect(seen.chars).toBeLessThanOrEqual(2 * MAX_PIECE_CHARS);
      seen.chars = 0;
      wrap(counter).count(long);
      expect(seen.chars).toBe(long.length);
    }
  });

  it('falls back to count for a counter without it', () => {
    const plain: TokenCounter = { encoding: 'o200k_base', count: (value) => value.length };
    expect(countUpTo(plain, 'abcdef', 2)).toBe(6);
  });
});

describe('countSteps', () => {
  it('gives the number count gives, in steps for a long text', () => {
    fc.assert(
      fc.property(text, (value) => {
        for (const counter of [
          spyCounter().counter,
          memoizeCounter(spyCounter().counter, { minLength: 1 }),
        ]) {
          const steps = countSteps(counter, value);
          let step = steps.next();
          while (!step.done) step = steps.next();
          expect(step.value).toBe(counter.count(value));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('pauses between the pieces of a megabyte, for the bounded and the memoizing counter', () => {
    const long = 'The quick brown fox jumps over the lazy dog. '.repeat(25_000);
    for (const counter of [spyCounter().counter, memoizeCounter(spyCounter().counter)]) {
      let pauses = 0;
      const steps = countSteps(counter, long);
      let step = steps.next();
      for (; !step.done; step = steps.next()) pauses++;
      expect(pauses).toBeGreaterThanOrEqual(Math.floor(long.length / MAX_PIECE_CHARS));
      expect(step.value).toBe(counter.count(long));
    }
  });
});
