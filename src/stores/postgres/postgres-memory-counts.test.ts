import { describe, expect, it } from 'vitest';
import { canonicalJson } from './postgres-memory-counts.js';

describe('canonicalJson', () => {
  it('writes equal filters alike whatever their key order, keeping array order', () => {
    const one = canonicalJson(['t', { userId: { eq: 'u' }, topics: { any: ['b', 'a'] } }]);
    const other = canonicalJson(['t', { topics: { any: ['b', 'a'] }, userId: { eq: 'u' } }]);
    expect(one).toBe(other);
    expect(one).toBe('["t",{"topics":{"any":["b","a"]},"userId":{"eq":"u"}}]');
    expect(canonicalJson(['t', { topics: { any: ['a', 'b'] } }])).not.toBe(
      canonicalJson(['t', { topics: { any: ['b', 'a'] } }]),
    );
  });
});
