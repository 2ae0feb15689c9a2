import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngram, type Engram } from '../../src/engram.js';
import type { EmbeddingProvider } from '../../src/providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../../src/providers/embeddings/static-embedding-provider.js';
import { singleRankingOverrides } from '../../src/retrieval/resolve-search-mode.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

// A small conversation where the vectors alone rank differently from engram's hybrid pipeline
// (BM25, dates, neighbouring turns): an AMS client that sends no mode, or AMS's default
// `semantic` over the offline static vectors, must get the library's hybrid ranking.
const temporaryDirectory = useTemporaryDirectories('engram-search-mode-');
const turns = [
  'Melanie: I signed up for a pottery class last week, it was so relaxing.',
  'Caroline: That sounds lovely! What did you make?',
  'Melanie: A bowl with a blue glaze. My kids loved it.',
  'Caroline: I went to an LGBTQ support group meeting on Tuesday.',
  'Melanie: How was it? Did you meet anyone?',
  'Caroline: Yes, a transgender woman shared her story and it inspired me to pursue counseling.',
  'Melanie: We went camping at the beach with the family in July.',
  'Caroline: I love the ocean, the sound of the waves calms me.',
  'Melanie: The kids roasted marshmallows and we watched the stars.',
  'Caroline: I am researching adoption agencies, I want to build a family.',
  'Melanie: That is wonderful, you will be a great mom.',
  'Caroline: Thanks! My friends have been very supportive of the career change too.',
];
const queries = [
  'What career is Caroline pursuing?',
  'What did Melanie make in her pottery class?',
  'Where did Melanie go camping?',
  'What inspired Caroline?',
  'What is Caroline researching?',
];

let server: EngramServer;
let url: string;
let engram: Engram;

async function open(embedder?: EmbeddingProvider) {
  const store = await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db') });
  engram = await createEngram({
    store,
    sweepIntervalMs: 0,
    defaultSources: false,
    ...(embedder ? { embedder } : {}),
  });
  server = createServer({ engram, config: { port: 0, logLevel: 'silent' } });
  url = (await server.listen()).url;
  await engram.memories.create(
    'default',
    turns.map((text, index) => ({
      id: `t${index}`,
      text,
      memoryType: 'message' as const,
      userId: 'u1',
      sessionId: `s${Math.floor(index / 3)}`,
      createdAt: new Date(Date.UTC(2023, 4, 8 + Math.floor(index / 3), 12, 0, index)).toISOString(),
    })),
  );
}

async function restIds(body: Record<string, unknown>): Promise<string[]> {
  const response = await fetch(`${url}/v1/long-term-memory/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: { eq: 'u1' }, limit: 5, ...body }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { memories: { id: string }[] }).memories.map((memory) => memory.id);
}

async function libraryIds(text: string, mode: 'hybrid' | 'vector'): Promise<string[]> {
  const { hits } = await engram.memories.search('default', {
    text,
    mode,
    // Vector-only as AMS ranks it: cosine distance alone.
    ...(mode === 'vector' ? { dateBoost: 0, entityBoost: 0, neighbors: { window: 0 } } : {}),
    limit: 5,
    filter: { userId: { eq: 'u1' } },
  });
  return hits.map((hit) => hit.memory.id);
}

describe('POST /v1/long-term-memory/search mode mapping (offline static vectors)', () => {
  beforeAll(() => open());
  afterAll(() => server.close());

  it('answers no mode, hybrid and semantic with the library hybrid ranking, keyword with BM25', async () => {
    let differs = 0;
    for (const text of queries) {
      const hybrid = await libraryIds(text, 'hybrid');
      if ((await libraryIds(text, 'vector')).join() !== hybrid.join()) differs++;
      expect(await restIds({ text })).toEqual(hybrid);
      expect(await restIds({ text, search_mode: 'hybrid' })).toEqual(hybrid);
      expect(await restIds({ text, search_mode: 'semantic' })).toEqual(hybrid);
      // Searches bump access times; a later no-mode search must still rank as the library does.
      expect(await restIds({ text })).toEqual(hybrid);
    }
    // The corpus discriminates: vector-only ranks differently on most queries.
    expect(differs).toBeGreaterThanOrEqual(3);
    // keyword is BM25 alone: the library's text mode without the adjustments and neighbours.
    const keyword = await engram.memories.search('default', {
      text: queries[0] as string,
      mode: 'text',
      ...singleRankingOverrides('text'),
      limit: 5,
      filter: { userId: { eq: 'u1' } },
    });
    expect(await restIds({ text: queries[0], search_mode: 'keyword', recency_boost: false })).toEqual(
      keyword.hits.map((hit) => hit.memory.id),
    );
  });

  it('keeps vector-only semantic where a distance threshold asks for distances', async () => {
    const text = queries[0] as string;
    expect(await restIds({ text, distance_threshold: 2, recency_boost: false })).toEqual(
      await libraryIds(text, 'vector'),
    );
  });
});

describe('POST /v1/long-term-memory/search with a real embedding model', () => {
  beforeAll(async () => {
    const vectors = await createStaticEmbeddingProvider();
    // Another model id: to the server this is a real semantic model.
    await open({
      model: 'test:semantic-model',
      dimensions: vectors.dimensions,
      embed: (texts) => vectors.embed(texts),
    });
  });
  afterAll(() => server.close());

  it('answers semantic with vector-only search and no mode with the hybrid ranking', async () => {
    for (const text of queries) {
      expect(await restIds({ text, search_mode: 'semantic', recency_boost: false })).toEqual(
        await libraryIds(text, 'vector'),
      );
      expect(await restIds({ text })).toEqual(await libraryIds(text, 'hybrid'));
    }
  });
});
