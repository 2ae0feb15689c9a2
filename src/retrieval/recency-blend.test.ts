import { beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecordInput } from '../core/schemas/memory-record.js';
import { createLongTermMemory } from '../engine/long-term/long-term-memory.js';
import type { EmbeddingProvider } from '../providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../providers/embeddings/static-embedding-provider.js';
import { createMemoryRecordStore } from '../stores/memory/memory-record-store.js';
import { hybridSearch, type SearchRequest } from './hybrid-search.js';
import { blendedScore, recencyBlendSchema, recencyScore } from './recency-blend.js';

let embedder: EmbeddingProvider;
beforeAll(async () => {
  embedder = await createStaticEmbeddingProvider();
});

const tenant = 'acme';
const now = new Date('2024-06-01T00:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();
const defaults = recencyBlendSchema.parse({});

async function setup(inputs: MemoryRecordInput[]) {
  const store = createMemoryRecordStore();
  await createLongTermMemory(store, embedder).create(tenant, inputs);
  return (request: SearchRequest) => hybridSearch(store, embedder, tenant, request, now);
}

describe('recency blend (AMS re-rank)', () => {
  it('follows the AMS formula with its defaults', () => {
    const fresh = { lastAccessed: now.toISOString(), createdAt: now.toISOString() };
    expect(recencyScore(fresh, defaults, now)).toBeCloseTo(1);
    const old = { lastAccessed: daysAgo(7), createdAt: daysAgo(30) };
    expect(recencyScore(old, defaults, now)).toBeCloseTo(0.6 * 0.5 + 0.4 * 0.5);
    expect(blendedScore(0.5, old, defaults, now)).toBeCloseTo(0.8 * 0.5 + 0.2 * 0.5);
    // Future stamps count as age 0; the sum is clamped to 1.
    const future = { lastAccessed: daysAgo(-3), createdAt: daysAgo(-3) };
    expect(recencyScore(future, { ...defaults, freshnessWeight: 2 }, now)).toBe(1);
    // A zero half-life is floored, not a division by zero.
    expect(recencyScore(old, { ...defaults, halfLifeLastAccessDays: 0 }, now)).toBeCloseTo(0.2);
  });

  it('ranks a filter-only listing by recency over the whole match set before paging', async () => {
    const search = await setup(
      Array.from({ length: 12 }, (_, index) => ({
        id: `m${index}`,
        text: `note ${index}`,
        // Creation order and access order disagree: m0 is oldest but was read just now.
        createdAt: daysAgo(index === 0 ? 300 : 100 - index),
        lastAccessed: daysAgo(index === 0 ? 0 : 100 - index),
      })),
    );
    const pages = [];
    for (let offset = 0; offset < 12; offset += 5) {
      const page = await search({ text: '', limit: 5, offset, recencyBlend: {} });
      expect(page.total).toBe(12);
      pages.push(...page.hits.map((hit) => hit.memory.id));
    }
    expect(pages[0]).toBe('m0');
    expect(pages).toEqual(['m0', 'm11', 'm10', 'm9', 'm8', 'm7', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1']);
    expect(new Set(pages).size).toBe(12);
  });

  it('lets recency reorder equally relevant hits, and reports similarity to the best hit', async () => {
    const search = await setup([
      { id: 'old', text: 'tea with lemon', createdAt: daysAgo(200), lastAccessed: daysAgo(200) },
      { id: 'new', text: 'tea with honey', createdAt: daysAgo(0), lastAccessed: daysAgo(0) },
    ]);
    const plain = await search({ text: 'tea', mode: 'text' });
    expect(plain.hits.map((hit) => hit.similarity)).toEqual([1, 1]);
    const blended = await search({ text: 'tea', mode: 'text', recencyBlend: {} });
    expect(blended.hits.map((hit) => hit.memory.id)).toEqual(['new', 'old']);
    // All relevance, no recency: back to the score order (ties by id).
    const relevanceOnly = await search({
      text: 'tea',
      mode: 'text',
      recencyBlend: { recencyWeight: 0 },
    });
    expect(relevanceOnly.hits.map((hit) => hit.memory.id)).toEqual(['new', 'old']);
    const vector = await search({ text: 'tea lemon', mode: 'vector', recencyBlend: { recencyWeight: 0 } });
    const distances = vector.hits.map((hit) => hit.distance ?? 2);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(vector.hits[0]?.similarity).toBe(1);
  });
});
