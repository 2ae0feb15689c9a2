import { describe, expect, it } from 'vitest';
import { loggedUrl } from './logged-url.js';

describe('loggedUrl', () => {
  it('keeps ids, numbers and flags, and hides the values of other query parameters', () => {
    expect(
      loggedUrl('/v1/working-memory/s1/working-set?namespace=n&user_id=u&query=my%20secret&limit=5'),
    ).toBe('/v1/working-memory/s1/working-set?namespace=n&user_id=u&query=…&limit=5');
    expect(loggedUrl('/v1/x?qu%65ry=secret&flag&unknown=secret')).toBe('/v1/x?qu%65ry=…&flag&unknown=…');
    expect(loggedUrl('/v1/health')).toBe('/v1/health');
  });

  it('cuts a long URL', () => {
    expect(loggedUrl(`/v1/long-term-memory/${'x'.repeat(10_000)}`).length).toBeLessThan(1_100);
  });
});
