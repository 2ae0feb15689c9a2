import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { LlmError } from '../../providers/llm/llm-error.js';
import { failureOf, isRetryable, retryDelayMs } from './job-retry.js';

const policy = { baseDelayMs: 1_000, maxDelayMs: 60_000 };

describe('retryDelayMs', () => {
  it('doubles per attempt between half and all of the exponential delay, capped', () => {
    expect(retryDelayMs(1, new Error('x'), policy, () => 1)).toBe(1_000);
    expect(retryDelayMs(1, new Error('x'), policy, () => 0)).toBe(500);
    expect(retryDelayMs(3, new Error('x'), policy, () => 1)).toBe(4_000);
    expect(retryDelayMs(30, new Error('x'), policy, () => 1)).toBe(60_000);
  });

  it('never waits less than the Retry-After the error carries', () => {
    const limited = new LlmError('llm_rate_limited', '429', { retryAfterMs: 90_000 });
    expect(retryDelayMs(1, limited, policy, () => 1)).toBe(90_000);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.nat(200_000),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempts, wait, random) => {
          const error = new LlmError('llm_rate_limited', '429', { retryAfterMs: wait });
          const delay = retryDelayMs(attempts, error, policy, () => random);
          expect(delay).toBeGreaterThanOrEqual(wait);
          expect(delay).toBeLessThanOrEqual(Math.max(wait, policy.maxDelayMs));
        },
      ),
    );
  });
});

describe('isRetryable', () => {
  it('follows the error’s own verdict, else retries all but validation errors', () => {
    expect(isRetryable(new LlmError('llm_timeout', 't'))).toBe(true);
    expect(isRetryable(new LlmError('llm_request_rejected', 'r'))).toBe(false);
    expect(isRetryable(new ValidationError('bad payload'))).toBe(false);
    expect(isRetryable(new NotFoundError('Session', 's'))).toBe(true);
    expect(isRetryable(new TypeError('fetch failed'))).toBe(true);
    expect(isRetryable(Object.assign(new Error('x'), { retryable: false }))).toBe(false);
  });
});

describe('failureOf', () => {
  it('keeps the message and the stable code', () => {
    expect(failureOf(new LlmError('llm_output_invalid', 'bad JSON'))).toEqual({
      message: 'bad JSON',
      code: 'llm_output_invalid',
    });
    expect(failureOf(new Error('boom'))).toEqual({ message: 'boom', code: null });
    expect(failureOf('text')).toEqual({ message: 'text', code: null });
  });
});
