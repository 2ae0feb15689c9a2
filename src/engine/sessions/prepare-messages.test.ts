import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors.js';
import { MAX_SESSION_MESSAGES } from '../../core/schemas/session.js';
import type { TokenCounter } from '../../core/tokens/token-counter.js';
import { prepareMessages } from './prepare-messages.js';

const counter: TokenCounter = { encoding: 'o200k_base', count: (text) => text.length };

describe('prepareMessages', () => {
  it('refuses more than MAX_SESSION_MESSAGES before reading any message', () => {
    let reads = 0;
    const item = new Proxy({}, { get: () => ++reads && 'x', has: () => ++reads > 0 });
    const inputs = Array.from({ length: MAX_SESSION_MESSAGES + 1 }, () => item);
    expect(() => prepareMessages(inputs, counter, new Date())).toThrowError(ValidationError);
    expect(() => prepareMessages(inputs, counter, new Date())).toThrowError(/at most 100000 messages/);
    expect(reads).toBe(0);
  });

  it('prepares a batch within the limit', () => {
    const [message] = prepareMessages([{ role: 'user', content: 'hello' }], counter, new Date());
    expect(message).toMatchObject({ role: 'user', content: 'hello', tokenCount: 5 });
  });
});
