import { describe, expect, it } from 'vitest';
import { withEmbeddingCache } from './cached-embedding-provider.js';
import type { EmbeddingProvider } from './embedding-provider.js';

/** A provider that records every batch it is asked for; a text's vector is [length, first char code]. */
function countingProvider(model = 'fake:1'): EmbeddingProvider & { batches: string[][]; model: string } {
  const provider = {
    model,
    dimensions: 2,
    batches: [] as string[][],
    async embed(texts: string[]) {
      provider.batches.push(texts);
      return texts.map((text) => Float32Array.from([text.length, text.charCodeAt(0) || 0]));
    },
  };
  return provider;
}

describe('withEmbeddingCache', () => {
  it('serves repeated texts from the cache without calling the provider', async () => {
    const inner = countingProvider();
    const cached = withEmbeddingCache(inner);
    const first = await cached.embed(['alpha', 'beta']);
    const second = await cached.embed(['beta', 'alpha']);
    expect(inner.batches).toEqual([['alpha', 'beta']]);
    expect(second).toEqual([first[1], first[0]]);
  });

  it('sends only uncached texts, each once, and keeps the input order', async () => {
    const inner = countingProvider();
    const cached = withEmbeddingCache(inner);
    await cached.embed(['a']);
    const vectors = await cached.embed(['bb', 'a', 'bb', 'ccc']);
    expect(inner.batches).toEqual([['a'], ['bb', 'ccc']]);
    expect(vectors.map((vector) => vector[0])).toEqual([2, 1, 2, 3]);
  });

  it('keys by model, so a new model identity misses the cache', async () => {
    const inner = countingProvider('fake:1');
    const cached = withEmbeddingCache(inner);
    await cached.embed(['same text']);
    inner.model = 'fake:2';
    expect(cached.model).toBe('fake:2');
    await cached.embed(['same text']);
    expect(inner.batches).toHaveLength(2);
  });

  it('evicts the least recently used entry beyond maxEntries', async () => {
    const inner = countingProvider();
    const cached = withEmbeddingCache(inner, { maxEntries: 2 });
    await cached.embed(['a', 'b']);
    await cached.embed(['a']); // "a" is now the most recent
    await cached.embed(['c']); // evicts "b"
    await cached.embed(['a', 'b']);
    expect(inner.batches).toEqual([['a', 'b'], ['c'], ['b']]);
  });

  it('returns copies, so callers cannot corrupt the cache', async () => {
    const cached = withEmbeddingCache(countingProvider());
    const [vector] = await cached.embed(['abc']);
    vector?.fill(0);
    expect((await cached.embed(['abc']))[0]?.[0]).toBe(3);
  });

  it('caches nothing when the provider fails, and rejects a wrong vector count', async () => {
    const inner = countingProvider();
    let failing = true;
    const flaky: EmbeddingProvider = {
      model: 'flaky',
      dimensions: 2,
      embed: async (texts) => {
        if (failing) throw new Error('down');
        return inner.embed(texts);
      },
    };
    const cached = withEmbeddingCache(flaky);
    await expect(cached.embed(['x'])).rejects.toThrow('down');
    failing = false;
    await cached.embed(['x']);
    expect(inner.batches).toEqual([['x']]);
    const broken = withEmbeddingCache({ model: 'broken', dimensions: 2, embed: async () => [] });
    await expect(broken.embed(['x'])).rejects.toMatchObject({ code: 'embedding_count_mismatch' });
  });

  it('validates its options', () => {
    expect(() => withEmbeddingCache(countingProvider(), { maxEntries: 0 })).toThrow(/maxEntries/);
  });
});

describe('withEmbeddingCache, calls at once', () => {
  it('embeds a text once when several calls ask for it while it is being embedded', async () => {
    const inner = countingProvider();
    const cached = withEmbeddingCache(inner);
    const [first, second, third] = await Promise.all([
      cached.embed(['query']),
      cached.embed(['query', 'other']),
      cached.embed(['query']),
    ]);
    expect(inner.batches).toEqual([['query'], ['other']]);
    expect(second?.[0]).toEqual(first?.[0]);
    expect(third?.[0]).toEqual(first?.[0]);
    // Each caller gets its own copy.
    expect(second?.[0]).not.toBe(first?.[0]);
  });

  it('shares a failure with the calls waiting on it, then tries again', async () => {
    let calls = 0;
    const cached = withEmbeddingCache({
      model: 'flaky:1',
      dimensions: 1,
      async embed(texts: string[]) {
        calls += 1;
        if (calls === 1) throw new Error('provider down');
        return texts.map(() => Float32Array.from([1]));
      },
    });
    const results = await Promise.allSettled([cached.embed(['q']), cached.embed(['q'])]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(await cached.embed(['q'])).toEqual([Float32Array.from([1])]);
    expect(calls).toBe(2);
  });

  it('refuses a vector of another length than declared, or not a Float32Array, and caches nothing', async () => {
    let answer: unknown[] = [Float32Array.from([1, 2, 3, 4])];
    const cached = withEmbeddingCache({
      model: 'custom:1',
      dimensions: 2,
      embed: async () => answer as Float32Array[],
    });
    await expect(cached.embed(['q'])).rejects.toMatchObject({ code: 'embedding_dimensions_mismatch' });
    answer = [[1, 2]];
    await expect(cached.embed(['q'])).rejects.toThrow('another type than Float32Array');
    answer = [Float32Array.from([1, 2])];
    expect(await cached.embed(['q'])).toEqual([Float32Array.from([1, 2])]);
  });
});
