import { beforeAll, describe, expect, it } from 'vitest';
import { loadTokenCounter, type TokenCounter } from '../../core/tokens/token-counter.js';
import type { EmbeddingProvider } from '../../providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../../providers/embeddings/static-embedding-provider.js';
import { createMemoryRecordStore } from '../../stores/memory/memory-record-store.js';
import { createLongTermServices } from './long-term-services.js';

let embedder: EmbeddingProvider;
let counter: TokenCounter;
beforeAll(async () => {
  embedder = await createStaticEmbeddingProvider();
  counter = await loadTokenCounter('o200k_base');
});
const tenant = 'acme';
const agentId = 'support';

/** Services over an embedder that fails once `failAfter` batches have been embedded (null: never). */
function services(failAfter: { batches: number | null } = { batches: null }) {
  let batches = 0;
  const failing: EmbeddingProvider = {
    get model() {
      return embedder.model;
    },
    get dimensions() {
      return embedder.dimensions;
    },
    embed: async (texts, options) => {
      if (failAfter.batches !== null && batches++ >= failAfter.batches) throw new Error('embedder down');
      return embedder.embed(texts, options);
    },
  };
  return createLongTermServices(createMemoryRecordStore(), failing, counter, () => new Date());
}

/** A document of `count` sections, each its own chunk. */
const sections = (label: string, count: number, from = 0) =>
  Array.from(
    { length: count },
    (_, index) => `# Section ${from + index}\n${label} paragraph number ${from + index} about returns.`,
  ).join('\n');

describe('replacing a knowledge document', () => {
  it('an ingest that fails leaves the old version whole, and a new document nothing', async () => {
    const control = { batches: null as number | null };
    const { knowledge } = services(control);
    await knowledge.ingest(tenant, { agentId, name: 'Returns.md', content: sections('Old', 60) });
    control.batches = 2;
    await expect(
      knowledge.ingest(tenant, { agentId, name: 'Returns.md', content: sections('New', 60) }),
    ).rejects.toThrow('embedder down');
    const [document] = await knowledge.list(tenant, agentId);
    expect(document?.chunks).toBe(60);
    const { chunks } = await knowledge.chunks(tenant, agentId, document?.documentId as string, {
      limit: 100,
      offset: 0,
    });
    expect(chunks.every((chunk) => chunk.text.includes('Old paragraph'))).toBe(true);
    await expect(
      knowledge.ingest(tenant, { agentId, name: 'Fresh.md', content: sections('Fresh', 60) }),
    ).rejects.toThrow('embedder down');
    expect((await knowledge.list(tenant, agentId)).map((entry) => entry.name)).toEqual(['Returns.md']);
  });

  it('two ingests of one document at once leave one version, the later one', async () => {
    const { knowledge } = services();
    await Promise.all([
      knowledge.ingest(tenant, { agentId, name: 'Returns.md', content: sections('Two', 40) }),
      knowledge.ingest(tenant, { agentId, name: 'Returns.md', content: sections('Three', 40) }),
    ]);
    const [document] = await knowledge.list(tenant, agentId);
    expect(document?.chunks).toBe(40);
    const { chunks } = await knowledge.chunks(tenant, agentId, document?.documentId as string, {
      limit: 100,
      offset: 0,
    });
    expect(chunks.every((chunk) => chunk.text.includes('Three paragraph'))).toBe(true);
  });

  it('a new first section: chunks come in document order, the reused ones renumbered; a rename renames them all', async () => {
    const { knowledge } = services();
    const first = await knowledge.ingest(tenant, {
      agentId,
      name: 'Guide.md',
      content: sections('Same', 3, 1),
    });
    const edited = await knowledge.ingest(tenant, {
      agentId,
      name: 'Guide.md',
      content: `${sections('Same', 1, 0)}\n${sections('Same', 3, 1)}`,
    });
    expect(edited).toMatchObject({ documentId: first.documentId, chunks: 4 });
    const { chunks } = await knowledge.chunks(tenant, agentId, first.documentId, { limit: 10, offset: 0 });
    expect(chunks.map((chunk) => (chunk.metadata as { chunkIndex: number }).chunkIndex)).toEqual([
      0, 1, 2, 3,
    ]);
    expect(chunks.map((chunk) => chunk.text.split('\n')[0])).toEqual([
      'Section 0',
      'Section 1',
      'Section 2',
      'Section 3',
    ]);
    expect(chunks.every((chunk) => (chunk.metadata as { chunkCount: number }).chunkCount === 4)).toBe(true);
    // Same document id, a new name: every chunk says the new name (the unchanged ones too).
    await knowledge.ingest(tenant, {
      agentId,
      name: 'Handbook.md',
      documentId: first.documentId,
      content: `${sections('Same', 1, 0)}\n${sections('Same', 3, 1)}`,
    });
    const renamed = await knowledge.chunks(tenant, agentId, first.documentId, { limit: 10, offset: 0 });
    expect(renamed.chunks.map((chunk) => chunk.source)).toEqual(Array(4).fill('Handbook.md'));
    expect((await knowledge.list(tenant, agentId)).map((entry) => entry.name)).toEqual(['Handbook.md']);
  });

  it('counts a chunk that repeats in the document once, as it is stored', async () => {
    const { knowledge } = services();
    const section = '# Returns\nWithin 30 days.';
    const document = await knowledge.ingest(tenant, {
      agentId,
      name: 'Twice.md',
      content: `${section}\n# Shipping\nFree over 50.\n${section}`,
    });
    const [listed] = await knowledge.list(tenant, agentId);
    expect(document.chunks).toBe(listed?.chunks);
    expect(listed?.chunks).toBe(2);
  });
});
