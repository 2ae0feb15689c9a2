import { describe, expect, it } from 'vitest';
import { sharedString } from './shared-string.js';

describe('sharedString', () => {
  it('returns the value it was given, and null for null', () => {
    const built = ['sem', 'antic'].join('');
    expect(sharedString(built)).toBe('semantic');
    expect(sharedString('semantic')).toBe('semantic');
    expect(sharedString(null)).toBeNull();
  });
});
