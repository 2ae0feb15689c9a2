import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultRetryOptions, retryAfterMs, retryDelayMs } from './retry-delay.js';

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
