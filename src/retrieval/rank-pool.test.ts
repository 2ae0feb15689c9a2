import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecordInput } from '../core/schemas/memory-record.js';
import { takeWithinChars } from '../core/take-within-chars.js';
import { createLongTermMemory } from '../engine/long-term/long-term-memory.js';
import type { EmbeddingProvider } from '../providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../providers/embeddings/static-embedding-provider.js';
import { createMemoryRecordStore } from '../stores/memory/memory-record-store.js';
import type { MemoryRecordStore } from '../stores/memory-record-store.js';
import { createSqliteStore } from '../stores/sqlite/sqlite-store.js';
import { hybridSearch, type SearchRequest } from './hybrid-search.js';

let embedder: EmbeddingProvider;
beforeAll(async () => {
  embedder = await createStaticEmbeddingProvider();
});

const tenant = 'acme';
const now = new Date('2024-06-01T00:00:00Z');
const WORDS = ['picnic', 'lake', 'frisbee', 'tax', 'audit', 'coffee', 'tea', 'garden', 'train', 'paris'];
const NAMES = ['Ada', 'Bob', 'Cara'];
const DAY_MS = 86_400_000;

/** A store that counts the records `getMemories` reads. */
function counting(store: MemoryRecordStore) {
  const counter = { read: 0 };
  const wrapped: MemoryRecordStore = {
    ...store,
    getMemories: (tenantId, ids) => {
      counter.read += ids.length;
      return store.getMemories(tenantId, ids);
    },
  };
  return { store: wrapped, counter };
}

const memoryArbitrary = fc.record({
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }),
  speaker: fc.option(fc.constantFrom(...NAMES), { nil: undefined }),
  asks: fc.boolean(),
  says: fc.constantFrom('', ' yesterday', ' on 3 May 2024'),
  session: fc.option(fc.constantFrom('s1', 's2', 's3'), { nil: undefined }),
  day: fc.integer({ min: 0, max: 365 }),
});

const requestArbitrary = fc.record({
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
  name: fc.option(fc.constantFrom(...NAMES), { nil: undefined }),
  when: fc.boolean(),
  date: fc.boolean(),
  limit: fc.integer({ min: 1, max: 8 }),
  offset: fc.integer({ min: 0, max: 4 }),
  sources: fc.integer({ min: 1, max: 4 }),
  recency: fc.constantFrom(0, 1),
  fusion: fc.constantFrom('score' as const, 'rrf' as const),
  maxTextChars: fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
});

describe('rankPool (reading only the records that can reach the page)', () => {
  it('gives what reading the whole pool gives', async () => {
    // Searches that stopped reading before the end of the pool (most do): the path the bounds guard.
    let stoppedEarly = 0;
    const runs = 200;
    await fc.assert(
      fc.asyncProperty(
        // Pools large enough that reading stops early (fast-check's default size would keep them
        // to about 10 records, where it seldom does).
        fc.array(memoryArbitrary, { minLength: 30, maxLength: 120, size: 'max' }),
        requestArbitrary,
        async (memories, shape) => {
          const store = createMemoryRecordStore();
          const inputs = memories.map(
            (memory, index): MemoryRecordInput => ({
              id: `m${index}`,
              text: `${memory.speaker ? `${memory.speaker}: ` : ''}${memory.words.join(' ')}${memory.says}${memory.asks ? '?' : '.'}`,
              memoryType: memory.session ? 'message' : 'semantic',
              ...(memory.session ? { sessionId: memory.session } : {}),
              ...(memory.speaker ? { entities: [memory.speaker] } : {}),
              createdAt: new Date(
                Date.parse('2024-04-01T00:00:00Z') + memory.day * DAY_MS + index * 1_000,
              ).toISOString(),
            }),
          );
          await createLongTermMemory(store, embedder).create(tenant, inputs, { deduplicate: false });
          const request: SearchRequest = {
            text: `${shape.when ? 'When did ' : 'What about '}${shape.name ?? 'they'} ${shape.words.join(' ')}${shape.date ? ' on 3 May 2024' : ''}?`,
            limit: shape.limit,
            offset: shape.offset,
            fusion: shape.fusion,
            neighbors: { sources: shape.sources },
            recency: { weight: shape.recency },
            ...(shape.maxTextChars !== undefined ? { maxTextChars: shape.maxTextChars } : {}),
          };
          const lazy = counting(store);
          const lazily = await hybridSearch(lazy.store, embedder, tenant, request, now);
          const whole = counting(store);
          const wholly = await hybridSearch(whole.store, embedder, tenant, request, now, {
            readWholePool: true,
          });
          expect(lazily).toEqual(wholly);
          expect(lazy.counter.read).toBeLessThanOrEqual(whole.counter.read);
          if (lazy.counter.read < whole.counter.read) stoppedEarly += 1;
          if (shape.maxTextChars === undefined) return;
          // The page within the text budget is the page without it, cut as takeWithinChars cuts.
          const { maxTextChars: _, ...unbounded } = request;
          const full = await hybridSearch(store, embedder, tenant, unbounded, now);
          const page = takeWithinChars(full.hits, (hit) => hit.memory.text.length, shape.maxTextChars);
          expect(lazily.hits).toEqual(page);
          expect(lazily.textCut ?? false).toBe(page.length < full.hits.length);
        },
      ),
      { numRuns: runs },
    );
    expect(stoppedEarly).toBeGreaterThan(runs / 2);
  });

  it('reads only the records that can fill a page of long texts', async () => {
    const store = createMemoryRecordStore();
    const long = (index: number) => `coffee garden note ${index} ${'tea and lake words '.repeat(110)}`;
    const inputs = Array.from(
      { length: 120 },
      (_, index): MemoryRecordInput => ({ text: long(index), memoryType: 'semantic' }),
    );
    await createLongTermMemory(store, embedder).create(tenant, inputs, { deduplicate: false });
    const request: SearchRequest = { text: 'coffee garden', limit: 100, maxTextChars: 25_000 };
    const bounded = counting(store);
    const result = await hybridSearch(bounded.store, embedder, tenant, request, now);
    const unbounded = counting(store);
    const { maxTextChars: _, ...whole } = request;
    const full = await hybridSearch(unbounded.store, embedder, tenant, whole, now);
    // About 2,100 characters each: a page of 11.
    expect(result.hits).toEqual(takeWithinChars(full.hits, (hit) => hit.memory.text.length, 25_000));
    expect(result.hits.length).toBe(11);
    expect(result.textCut).toBe(true);
    expect(unbounded.counter.read).toBeGreaterThanOrEqual(100);
    expect(bounded.counter.read).toBeLessThan(40);
  });

  it('reads a few records for a short page out of a large pool, on the memory and SQLite drivers', async () => {
    const inputs = Array.from(
      { length: 300 },
      (_, index): MemoryRecordInput => ({
        text: `${WORDS[index % WORDS.length]} ${WORDS[(index * 7) % WORDS.length]} note ${index}`,
        memoryType: 'semantic',
      }),
    );
    const sqlite = await createSqliteStore({ path: ':memory:' });
    try {
      for (const base of [createMemoryRecordStore(), sqlite.memories]) {
        await createLongTermMemory(base, embedder).create(tenant, inputs);
        const { store, counter } = counting(base);
        const request: SearchRequest = { text: 'coffee garden', limit: 3 };
        const lazily = await hybridSearch(store, embedder, tenant, request, now);
        const lazyReads = counter.read;
        counter.read = 0;
        const wholly = await hybridSearch(store, embedder, tenant, request, now, { readWholePool: true });
        expect(lazily).toEqual(wholly);
        expect(counter.read).toBeGreaterThanOrEqual(200);
        expect(lazyReads).toBeLessThan(counter.read / 4);
      }
    } finally {
      await sqlite.close();
    }
  });
});
