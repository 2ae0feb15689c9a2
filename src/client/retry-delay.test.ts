import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultRetryOptions, resolveRetryOptions, retryAfterMs, retryDelayMs } from './retry-delay.js';

describe('retryAfterMs', () => {
  it('reads delay-seconds and HTTP dates, and ignores anything else', () => {
    expect(retryAfterMs('3')).toBe(3_000);
    expect(retryAfterMs('0')).toBe(0);
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(retryAfterMs('Wed, 25 Nov 2026 12:00:05 GMT', now)).toBe(5_000);
    expect(retryAfterMs('Wed, 25 Nov 2026 11:00:00 GMT', now)).toBe(0);
    for (const header of [null, '', 'soon', '-1', '1.5']) expect(retryAfterMs(header)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it('honours Retry-After with at most 10% jitter, and backs off exponentially without it', () => {
    expect(retryDelayMs(0, 2_000, defaultRetryOptions, () => 0)).toBe(2_000);
    expect(retryDelayMs(0, 2_000, defaultRetryOptions, () => 0.999)).toBe(2_200);
    expect(retryDelayMs(2, undefined, defaultRetryOptions, () => 0.5)).toBe(500);
  });

  it('is never negative and never longer than maxDelayMs', () => {
    fc.assert(
      fc.property(
        fc.nat(20),
        fc.option(fc.nat(10_000_000), { nil: undefined }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, retryAfter, maxDelayMs, random) => {
          const delay = retryDelayMs(
            attempt,
            retryAfter,
            { ...defaultRetryOptions, maxDelayMs },
            () => random,
          );
          return delay >= 0 && delay <= maxDelayMs;
        },
      ),
    );
  });
});

describe('resolveRetryOptions', () => {
  it('keeps the default of an option given as undefined; false turns retrying off', () => {
    expect(resolveRetryOptions({ maxRetries: undefined, maxDelayMs: undefined, baseDelayMs: 5 })).toEqual({
      ...defaultRetryOptions,
      baseDelayMs: 5,
    });
    expect(resolveRetryOptions(undefined)).toEqual(defaultRetryOptions);
    expect(resolveRetryOptions(false).maxRetries).toBe(0);
  });

  it('throws a RangeError naming an option that is not a number in range', () => {
    expect(() => resolveRetryOptions({ maxRetries: -1 })).toThrow(RangeError);
    expect(() => resolveRetryOptions({ maxRetries: 2.5 })).toThrow(
      /retry\.maxRetries must be a whole number/,
    );
    expect(() => resolveRetryOptions({ maxDelayMs: Number.NaN })).toThrow(/retry\.maxDelayMs/);
    expect(() => resolveRetryOptions({ baseDelayMs: -1 })).toThrow(/retry\.baseDelayMs/);
  });
});
