import { beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import type { EmbeddingProvider } from '../../providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../../providers/embeddings/static-embedding-provider.js';
import { createMemoryRecordStore } from '../../stores/memory/memory-record-store.js';
import { createLongTermMemory } from './long-term-memory.js';

let embedder: EmbeddingProvider;
beforeAll(async () => {
  embedder = await createStaticEmbeddingProvider();
});

const tenant = 'acme';
const setup = () => createLongTermMemory(createMemoryRecordStore(), embedder);

describe('long-term memory', () => {
  it('creates a batch with ids, hashes and embeddings, and deduplicates identical memories', async () => {
    const memories = setup();
    const { inserted } = await memories.create(tenant, [
      { text: 'Ada prefers window seats.', userId: 'ada', topics: ['travel'] },
      { text: 'Ada is vegetarian.', userId: 'ada' },
    ]);
    expect(inserted).toHaveLength(2);
    expect(inserted[0]?.memoryHash).toMatch(/^[0-9a-f]{64}$/);
    expect(inserted[0]?.embeddingModel).toBe(embedder.model);
    const again = await memories.create(tenant, [{ text: 'Ada prefers window seats.', userId: 'ada' }]);
    expect(again.inserted).toHaveLength(0);
    expect(again.duplicates[0]?.existing.id).toBe(inserted[0]?.id);
    // Same text for another user is another memory.
    expect(
      (await memories.create(tenant, [{ text: 'Ada prefers window seats.', userId: 'bob' }])).inserted,
    ).toHaveLength(1);
  });

  it('counts every match for a search total, and not for the working set or countTotal: false', async () => {
    const store = createMemoryRecordStore();
    let counts = 0;
    const countMemories = store.countMemories.bind(store);
    store.countMemories = async (...args) => {
      counts += 1;
      return countMemories(...args);
    };
    const memories = createLongTermMemory(store, embedder);
    await memories.create(
      tenant,
      Array.from({ length: 260 }, (_, index) => ({
        text: `Ada visited museum number ${index}.`,
        userId: 'ada',
      })),
    );
    const request = { text: 'museum', limit: 5, filter: { userId: { eq: 'ada' } } };
    const counted = await memories.search(tenant, request);
    expect(counts).toBe(1);
    expect(counted.total).toBe(260);
    const uncounted = await memories.search(tenant, request, { countTotal: false });
    expect(uncounted.hits.map((hit) => hit.memory.id)).toEqual(counted.hits.map((hit) => hit.memory.id));
    await memories.workingSet(tenant, { query: 'museum', userId: 'ada', options: { limit: 5 } });
    expect(counts).toBe(1);
  });

  it('rejects bad input with typed errors and writes nothing', async () => {
    const memories = setup();
    const attempts: unknown[][] = [
      [{ text: '' }],
      [{ text: 'x'.repeat(20_001) }],
      [{ text: 'ok' }, { text: 'bad date', eventDate: '12/05/2024' }],
      [{ text: 'ok' }, { text: 'wrong dims', embedding: [0.1, 0.2, 0.3] }],
      [{ text: 'bad type', memoryType: 'dream' }],
      [
        { id: 'same', text: 'a' },
        { id: 'same', text: 'b' },
      ],
      [],
    ];
    for (const inputs of attempts) {
      await expect(memories.create(tenant, inputs as never)).rejects.toBeInstanceOf(ValidationError);
    }
    expect((await memories.list(tenant)).total).toBe(0);
    await expect(memories.list(tenant, { topics: { bogus: ['x'] } } as never)).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('edits under the same id: a new version, the old one in its history', async () => {
    const memories = setup();
    const [original] = (await memories.create(tenant, [{ text: 'Ada lives in Lisbon.', userId: 'ada' }]))
      .inserted;
    const id = original?.id ?? '';
    const updated = await memories.edit(tenant, id, { text: 'Ada lives in Porto.' }, { writtenBy: 'agent' });
    expect(updated).toMatchObject({ id, version: 2, writtenBy: 'agent', supersedes: null, validTo: null });
    expect(updated.memoryHash).not.toBe(original?.memoryHash);
    expect(await memories.get(tenant, id)).toStrictEqual(updated);
    const { memories: current } = await memories.list(tenant, { userId: { eq: 'ada' } });
    expect(current.map((memory) => memory.text)).toEqual(['Ada lives in Porto.']);
    const history = (await memories.history(tenant, id)).versions;
    expect(history.map((version) => [version.version, version.text, version.writtenBy])).toEqual([
      [2, 'Ada lives in Porto.', 'agent'],
      [1, 'Ada lives in Lisbon.', 'api'],
    ]);
    expect(history[1]?.validTo).toBe(updated.validFrom);
    // An edit that changes nothing writes no version.
    expect(await memories.edit(tenant, id, { text: 'Ada lives in Porto.' })).toStrictEqual(updated);
    const stale = memories.edit(tenant, id, { text: 'again' }, { expectedVersion: 1 });
    await expect(stale).rejects.toMatchObject({ code: 'version_conflict' });
    await expect(memories.edit(tenant, 'missing', { text: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(memories.history(tenant, 'missing')).rejects.toBeInstanceOf(NotFoundError);
    await expect(memories.edit(tenant, id, { unknownField: 1 } as never)).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('keeps identical memories apart when asked not to deduplicate', async () => {
    const memories = setup();
    const { inserted } = await memories.create(
      tenant,
      [
        { id: 'a', text: 'Same words.', userId: 'ada' },
        { id: 'b', text: 'Same words.', userId: 'ada' },
      ],
      { deduplicate: false },
    );
    expect(inserted.map((memory) => memory.id)).toEqual(['a', 'b']);
  });

  it('searches hybrid within the tenant and user scope, with true totals', async () => {
    const memories = setup();
    await memories.create(tenant, [
      { text: 'Ada adopted a puppy named Biscuit.', userId: 'ada' },
      { text: 'Ada works as a nurse in the night shift.', userId: 'ada' },
      { text: 'Ada is learning to play the cello.', userId: 'ada' },
      { text: 'Bob adopted a kitten.', userId: 'bob' },
    ]);
    await memories.create('other-tenant', [{ text: 'Ada adopted a dog.', userId: 'ada' }]);
    const result = await memories.search(tenant, {
      text: 'What pet did Ada get?',
      filter: { userId: { eq: 'ada' } },
    });
    expect(result.hits[0]?.memory.text).toBe('Ada adopted a puppy named Biscuit.');
    expect(result.total).toBe(3);
    expect(result.hits.every((hit) => hit.memory.userId === 'ada' && hit.memory.tenantId === tenant)).toBe(
      true,
    );
    expect(result.hits[0]?.relevance).toBeGreaterThan(0);
    const paged = await memories.search(tenant, {
      text: 'Ada',
      limit: 1,
      offset: 1,
      filter: { userId: { eq: 'ada' } },
    });
    expect(paged.hits).toHaveLength(1);
    expect(paged.total).toBe(3);
  });

  it('builds a working set honouring pins and removals', async () => {
    const memories = setup();
    const { inserted } = await memories.create(tenant, [
      { text: 'Ada loves sailing on weekends.', userId: 'ada', salience: 0.9 },
      { text: 'Ada sails a small dinghy.', userId: 'ada', salience: 0.9 },
      { text: 'Ada is allergic to peanuts.', userId: 'ada', salience: 0.9 },
    ]);
    const [sailing, dinghy, allergy] = inserted;
    const set = await memories.workingSet(tenant, {
      query: 'sailing plans this weekend',
      userId: 'ada',
      pins: new Set([allergy?.id ?? '']),
      removals: new Set([dinghy?.id ?? '']),
    });
    const ids = set.items.map((item) => item.id);
    expect(ids).toContain(allergy?.id);
    expect(ids).toContain(sailing?.id);
    expect(ids).not.toContain(dinghy?.id);
    expect(set.items.find((item) => item.id === allergy?.id)?.pinned).toBe(true);
    expect(set.items[0]?.components.similarity).toBeGreaterThanOrEqual(0);
    // Access statistics are written off the turn, in batches: seen once flushed.
    expect((await memories.get(tenant, sailing?.id ?? '')).accessCount).toBe(0);
    await memories.flush();
    expect((await memories.get(tenant, sailing?.id ?? '')).accessCount).toBe(1);
  });

  it('deletes a memory with the memories merged into it (and what it was merged into)', async () => {
    const store = createMemoryRecordStore();
    const memories = createLongTermMemory(store, embedder);
    const [old] = (await memories.create(tenant, [{ id: 'old', text: 'Door code 9999', userId: 'ada' }]))
      .inserted;
    if (!old) throw new Error('not created');
    const merge = async (from: string, to: string, text: string) => {
      const [record] = await store.getMemories(tenant, [from]);
      if (!record) throw new Error(`no ${from}`);
      const now = new Date(Date.parse(record.createdAt) + 1).toISOString();
      await store.supersede(tenant, from, {
        ...record,
        id: to,
        text,
        createdAt: now,
        updatedAt: now,
        validFrom: now,
        memoryHash: `hash-${to}`,
        embedding: null,
      });
    };
    await merge('old', 'middle', 'Door code 1234');
    await merge('middle', 'new', 'Door code changed');
    await memories.create(tenant, [{ id: 'other', text: 'Ada likes tea', userId: 'ada' }]);
    // Named by the middle of its chain (twice, by two of its ids), the whole chain goes, counted as
    // one memory; nothing else does.
    expect(await memories.delete(tenant, ['middle', 'old', 'absent'])).toBe(1);
    expect(await store.getMemories(tenant, ['old', 'middle', 'new', 'other'])).toMatchObject([
      { id: 'other' },
    ]);
  });

  it("never takes another user's (or namespace's) memory into a working set through a pin", async () => {
    const memories = setup();
    const { inserted } = await memories.create(tenant, [
      { text: 'Ada sails on weekends.', userId: 'ada', namespace: 'home' },
      { text: 'Bob: my bank PIN is 4321.', userId: 'bob', namespace: 'home' },
      { text: 'Ada: the office door code is 77.', userId: 'ada', namespace: 'work' },
    ]);
    const [own, bobs, otherNamespace] = inserted;
    const set = await memories.workingSet(tenant, {
      query: 'weekend plans',
      userId: 'ada',
      namespace: 'home',
      pins: new Set([own?.id ?? '', bobs?.id ?? '', otherNamespace?.id ?? '']),
    });
    const ids = set.items.map((item) => item.id);
    expect(ids).toContain(own?.id);
    expect(ids).not.toContain(bobs?.id);
    expect(ids).not.toContain(otherNamespace?.id);
    expect(set.memories.map((memory) => memory.text).join(' ')).not.toContain('4321');
  });

  it('writes a batch of working-set uses in one store call per distinct use count', async () => {
    const store = createMemoryRecordStore();
    const calls: { ids: string[]; times: number | undefined }[] = [];
    const recordAccess = store.recordAccess.bind(store);
    store.recordAccess = async (tenantId, ids, at, times) => {
      calls.push({ ids: [...ids], times });
      return recordAccess(tenantId, ids, at, times);
    };
    const memories = createLongTermMemory(store, embedder);
    const { inserted } = await memories.create(tenant, [
      { text: 'Ada loves sailing on weekends.', userId: 'ada' },
      { text: 'Ada sails a small dinghy.', userId: 'ada' },
    ]);
    // Five turns of an agent loop within one batch: both memories come back every time.
    for (let turn = 0; turn < 5; turn++) {
      await memories.workingSet(tenant, { query: 'sailing dinghy', userId: 'ada' });
    }
    await memories.flush();
    expect(calls).toEqual([{ ids: expect.arrayContaining(inserted.map((memory) => memory.id)), times: 5 }]);
    for (const memory of inserted) expect((await memories.get(tenant, memory.id)).accessCount).toBe(5);
  });

  it('re-embeds memories when the embedding model changes', async () => {
    const store = createMemoryRecordStore();
    await createLongTermMemory(store, embedder).create(tenant, [{ text: 'one' }, { text: 'two' }]);
    const other: EmbeddingProvider = {
      model: 'test:other@1',
      dimensions: embedder.dimensions,
      embed: (texts) => embedder.embed(texts),
    };
    const switched = createLongTermMemory(store, other);
    // A search detects vectors of another model and re-embeds in the background.
    await switched.search(tenant, { text: 'one' });
    await switched.idle(tenant);
    expect(await switched.reembed(tenant)).toBe(0);
    expect(
      (await switched.list(tenant)).memories.every((memory) => memory.embeddingModel === 'test:other@1'),
    ).toBe(true);
  });
});
