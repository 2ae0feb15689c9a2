import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './fetch-with-retry.js';

describe('retryDelayMs', () => {
  it('honours Retry-After in seconds or as an HTTP date', () => {
    expect(retryDelayMs(0, '2', 500)).toBe(2_000);
    expect(retryDelayMs(3, '0', 500)).toBe(0);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryDelayMs(0, 'Wed, 01 Jan 2025 00:00:05 GMT', 500, now)).toBe(5_000);
    expect(retryDelayMs(0, 'Tue, 31 Dec 2024 23:59:00 GMT', 500, now)).toBe(0);
  });

  it('backs off exponentially with jitter between 50% and 100%', () => {
    for (const attempt of [0, 1, 2, 3]) {
      const delay = retryDelayMs(attempt, null, 100);
      expect(delay).toBeGreaterThanOrEqual(50 * 2 ** attempt);
      expect(delay).toBeLessThanOrEqual(100 * 2 ** attempt);
    }
    expect(retryDelayMs(1, 'garbage', 100)).toBeLessThanOrEqual(200);
  });
});
