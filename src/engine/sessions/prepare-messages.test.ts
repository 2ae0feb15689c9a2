import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors.js';
import { nextTurn } from '../../core/event-loop-slicer.js';
import { messageInputSchema } from '../../core/schemas/message.js';
import { MAX_SESSION_MESSAGES } from '../../core/schemas/session.js';
import { loadTokenCounter, type TokenCounter } from '../../core/tokens/token-counter.js';
import { createMessagePreparer, prepareMessages } from './prepare-messages.js';

const counter: TokenCounter = { encoding: 'o200k_base', count: (text) => text.length };

describe('prepareMessages', () => {
  it('refuses more than MAX_SESSION_MESSAGES before reading any message', async () => {
    let reads = 0;
    const item = new Proxy({}, { get: () => ++reads && 'x', has: () => ++reads > 0 });
    const inputs = Array.from({ length: MAX_SESSION_MESSAGES + 1 }, () => item);
    await expect(prepareMessages(inputs, counter, new Date())).rejects.toThrowError(ValidationError);
    await expect(prepareMessages(inputs, counter, new Date())).rejects.toThrowError(
      /at most 100000 messages/,
    );
    expect(reads).toBe(0);
  });

  it('counts a long message from a turn of its own, a short one at once', async () => {
    const firstCount = async (content: string) => {
      // From a turn of the loop that no other sliced work has used (the previous call's has).
      await new Promise((resolve) => setTimeout(resolve, 1));
      let turnPassed = false;
      setImmediate(() => {
        turnPassed = true;
      });
      let counted: boolean | undefined;
      const recording: TokenCounter = {
        encoding: 'o200k_base',
        count: (text) => {
          counted ??= turnPassed;
          return text.length;
        },
      };
      await prepareMessages([{ role: 'user', content }], recording, new Date());
      return counted;
    };
    expect(await firstCount('x'.repeat(70_000))).toBe(true);
    expect(await firstCount('hello')).toBe(false);
  });

  it('prepares a short message at once and a long one through a promise, alike', async () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const prepare = await createMessagePreparer([], counter, now);
    const short = prepare({ role: 'user', content: 'hello', id: 'm1' }, 0);
    expect(short).not.toBeInstanceOf(Promise);
    expect(short).toEqual({
      id: 'm1',
      role: 'user',
      content: 'hello',
      createdAt: now.toISOString(),
      tokenCount: 5,
      tokenEncoding: 'o200k_base',
    });
    const content = 'x'.repeat(70_000);
    const long = prepare({ role: 'user', content, id: 'm2', name: 'bob' }, 1);
    expect(long).toBeInstanceOf(Promise);
    const [batched] = await prepareMessages([{ role: 'user', content, name: 'bob' }], counter, now);
    expect(await long).toMatchObject({ id: 'm2', name: 'bob', tokenCount: batched?.tokenCount });
    // The checks run before any counting, for long messages too.
    expect(() => prepare({ role: 'user', content, id: 'm2' }, 2)).toThrowError(/Duplicate message id m2/);
  });

  it('dates each message as toISOString writes its createdAt, and an undated one now', async () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const prepare = await createMessagePreparer([], counter, now);
    let index = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: now, noInvalidDate: true }),
        fc.constantFrom('iso', 'offset', 'seconds'),
        async (date, form) => {
          const iso = date.toISOString();
          const text =
            form === 'iso' ? iso : form === 'offset' ? iso.replace('Z', '+00:00') : `${iso.slice(0, 19)}Z`;
          const parsed = messageInputSchema.parse({ role: 'user', content: 'x', createdAt: text });
          const message = await prepare(parsed, index++);
          expect(message.createdAt).toBe(new Date(text).toISOString());
        },
      ),
      { numRuns: 300 },
    );
    const undated = await prepare({ role: 'user', content: 'x' }, index++);
    expect(undated.createdAt).toBe(now.toISOString());
  });

  it('prepares a batch within the limit', async () => {
    const [message] = await prepareMessages([{ role: 'user', content: 'hello' }], counter, new Date());
    expect(message).toMatchObject({ role: 'user', content: 'hello', tokenCount: 5 });
  });

  it('lets the event loop run while counting a long message, and counts it as count() does', async () => {
    const real = await loadTokenCounter('o200k_base');
    let seed = 7;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    let content = '';
    for (let index = 0; index < 200_000; index++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      content += alphabet[seed % alphabet.length];
    }
    const state = { turns: 0, running: true };
    (async () => {
      while (state.running) {
        await nextTurn();
        state.turns++;
      }
    })();
    const [message] = await prepareMessages([{ role: 'user', content }], real, new Date());
    state.running = false;
    expect(message?.tokenCount).toBe(real.count(content));
    // 200,000 characters of base64-like text take hundreds of ms to count: never in one go.
    expect(state.turns).toBeGreaterThan(1);
  });
});
