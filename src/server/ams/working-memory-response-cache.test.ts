import { describe, expect, it } from 'vitest';
import { type CachedResponse, createResponseCache } from './working-memory-response-cache.js';

const entry = (bytes: number): CachedResponse => ({
  key: { tenantId: 'default', sessionId: 's', namespace: null, userId: null },
  revision: '1.1',
  etag: '"1"',
  body: [Buffer.alloc(bytes)],
});

describe('createResponseCache', () => {
  const keysAfter = (steps: (cache: ReturnType<typeof createResponseCache>) => void) => {
    const cache = createResponseCache({ maxEntries: 3, maxBytes: 1_000, maxEntryBytes: 500 });
    steps(cache);
    return ['a', 'b', 'c', 'd', 'e'].filter((key) => cache.get(key) !== undefined);
  };

  it('evicts the least recently used entry, repeated reads of one entry included', () => {
    const kept = keysAfter((cache) => {
      for (const key of ['a', 'b', 'c']) cache.set(key, entry(10));
      cache.get('a');
      cache.get('a');
      cache.get('b');
      cache.get('b');
      cache.set('d', entry(10));
    });
    expect(kept).toEqual(['a', 'b', 'd']);
  });

  it('counts a read as use after the newest entry was deleted or replaced', () => {
    expect(
      keysAfter((cache) => {
        for (const key of ['a', 'b', 'c']) cache.set(key, entry(10));
        cache.get('a');
        cache.delete('a');
        cache.set('a', entry(10));
        cache.get('b');
        cache.set('d', entry(10));
        cache.set('e', entry(10));
      }),
    ).toEqual(['b', 'd', 'e']);
    expect(
      keysAfter((cache) => {
        for (const key of ['a', 'b', 'c']) cache.set(key, entry(10));
        cache.set('c', entry(600)); // too big: not kept, and no longer the newest
        cache.get('a');
        cache.set('d', entry(10));
        cache.set('e', entry(10));
      }),
    ).toEqual(['a', 'd', 'e']);
  });

  it('keeps within its bytes, oldest out first', () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1_000, maxEntryBytes: 500 });
    for (const key of ['a', 'b', 'c']) cache.set(key, entry(400));
    expect(cache.size).toEqual({ entries: 2, bytes: 800 });
    expect(cache.get('a')).toBeUndefined();
  });
});
