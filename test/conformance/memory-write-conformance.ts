import { expect, it } from 'vitest';
import { NotFoundError, StoreError, ValidationError } from '../../src/core/errors.js';
import { rejectionOf } from './fixtures.js';
import {
  CURRENT,
  everything,
  expectCode,
  expectedRecord,
  idsOf,
  insertAll,
  type MemoryConformanceContext,
  MODEL,
  newMemory,
  OTHER_TENANT,
  TENANT,
} from './memory-record-fixtures.js';

/** Inserting, deduplication, atomicity, tenant isolation, copies and closing. */
export function describeMemoryWriteConformance(context: MemoryConformanceContext): void {
  it('round-trips every field, with timestamps normalized to UTC', async () => {
    const { memories } = context;
    const input = newMemory('full', {
      text: 'Ana prefers window seats on long flights',
      memoryType: 'episodic',
      namespace: 'travel',
      userId: 'ana',
      sessionId: 'session-9',
      agentId: 'planner',
      documentId: 'doc-1',
      source: 'chat',
      topics: ['travel', 'seats'],
      entities: ['Ana'],
      eventDate: '2025-12-24T18:30:00.000+02:00',
      createdAt: '2025-12-25T00:00:00.000Z',
      updatedAt: '2025-12-26T00:00:00.000Z',
      lastAccessed: '2025-12-27T00:00:00.000Z',
      accessCount: 3,
      salience: 0.9,
      confidence: 0.25,
      pinned: true,
      metadata: { origin: { tool: 'extract', tries: 2 }, tags: ['a', null, true] },
      supersedes: 'earlier',
      validFrom: '2025-12-25T00:00:00.000Z',
      persistedAt: '2025-12-25T00:00:01.000Z',
      vector: [0.5, 0.5, 0.5, 0.5],
    });
    const expected = { ...expectedRecord(input), eventDate: '2025-12-24T16:30:00.000Z' };
    const { inserted, duplicates } = await memories.insertMemories(TENANT, [input]);
    expect(duplicates).toEqual([]);
    expect(inserted).toStrictEqual([expected]);
    expect(await memories.getMemories(TENANT, ['full'])).toStrictEqual([expected]);
  });

  it('returns records in the order asked, once each, skipping absent ids', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('a'), newMemory('b'), newMemory('c')]);
    expect(idsOf(await memories.getMemories(TENANT, ['c', 'missing', 'a', 'c']))).toEqual(['c', 'a']);
    expect(await memories.getMemories(TENANT, [])).toEqual([]);
  });

  it('keeps tenants apart in every operation', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('a', { text: 'shared secret apple', vector: [1, 0, 0, 0] })]);
    expect(await memories.getMemories(OTHER_TENANT, ['a'])).toEqual([]);
    expect(await memories.listMemories(OTHER_TENANT, CURRENT, { limit: 10, offset: 0 })).toEqual({
      memories: [],
      total: 0,
    });
    expect(await memories.searchText(OTHER_TENANT, 'apple', CURRENT, 10)).toEqual([]);
    expect(
      await memories.searchVector(OTHER_TENANT, Float32Array.of(1, 0, 0, 0), MODEL, CURRENT, 10),
    ).toEqual([]);
    expect(await memories.findUnembedded(OTHER_TENANT, 'other-model', 10)).toEqual([]);
    await expectCode(memories.supersede(OTHER_TENANT, 'a', newMemory('a2')), 'not_found', NotFoundError);
    await memories.recordAccess(OTHER_TENANT, ['a'], '2026-05-01T00:00:00.000Z');
    await memories.setEmbeddings(OTHER_TENANT, 'other-model', [{ id: 'a', vector: Float32Array.of(1, 2) }]);
    expect(await memories.deleteMemories(OTHER_TENANT, ['a'])).toBe(0);
    const [stored] = await memories.getMemories(TENANT, ['a']);
    expect(stored).toMatchObject({ accessCount: 0, embeddingModel: MODEL, validTo: null });

    // The same id and the same hash are free in another tenant, and its dimensions are its own.
    const other = await memories.insertMemories(OTHER_TENANT, [
      newMemory('a', { text: 'shared secret apple', vector: [1, 0] }),
    ]);
    expect(other.inserted).toHaveLength(1);
    expect(idsOf(await memories.searchText(TENANT, 'apple', CURRENT, 10))).toEqual(['a']);
    expect(await everything(memories)).toHaveLength(1);
  });

  it('returns an identical current record as a duplicate instead of inserting it', async () => {
    const { memories } = context;
    const [original] = await insertAll(memories, [newMemory('a', { text: 'likes tea' })]);
    const again = newMemory('b', { text: 'likes tea', vector: [1, 0, 0, 0] });
    const result = await memories.insertMemories(TENANT, [again, newMemory('c', { text: 'likes coffee' })]);
    expect(idsOf(result.inserted)).toEqual(['c']);
    expect(result.duplicates).toStrictEqual([{ requestedId: 'b', existing: original }]);
    expect(await memories.getMemories(TENANT, ['b'])).toEqual([]);
    // Another scope is another memory, even with the same text.
    const elsewhere = await memories.insertMemories(TENANT, [
      newMemory('d', { text: 'likes tea', userId: 'user-2' }),
    ]);
    expect(idsOf(elsewhere.inserted)).toEqual(['d']);
  });

  it('deduplicates within a batch: the first is inserted, the later one is its duplicate', async () => {
    const { memories } = context;
    const result = await memories.insertMemories(TENANT, [
      newMemory('a', { text: 'same words' }),
      newMemory('b', { text: 'other words' }),
      newMemory('c', { text: 'same words' }),
    ]);
    expect(idsOf(result.inserted)).toEqual(['a', 'b']);
    expect(result.duplicates).toStrictEqual([{ requestedId: 'c', existing: result.inserted[0] }]);
    expect(idsOf(await everything(memories))).toEqual(['a', 'b']);
  });

  it('writes a large batch in order: every record with its own vector, duplicates across it found', async () => {
    // 250 records: past the row count that a driver may write in one statement (SQLite: 100).
    const { memories } = context;
    const angle = (index: number) => (index * Math.PI) / 500;
    const batch = Array.from({ length: 250 }, (_, index) =>
      newMemory(`m${String(index).padStart(3, '0')}`, {
        text: index === 180 ? 'memory m010' : `memory m${String(index).padStart(3, '0')}`,
        vector: index % 3 === 0 ? null : [Math.cos(angle(index)), Math.sin(angle(index)), 0, 0],
      }),
    );
    const result = await memories.insertMemories(TENANT, batch);
    expect(idsOf(result.inserted)).toEqual(batch.filter((_, index) => index !== 180).map(({ id }) => id));
    expect(result.duplicates).toStrictEqual([{ requestedId: 'm180', existing: result.inserted[10] }]);
    const stored = await memories.getMemories(TENANT, idsOf(result.inserted));
    expect(stored).toEqual(result.inserted);
    expect(stored.map(({ embeddingModel }) => embeddingModel)).toEqual(
      result.inserted.map(({ id }) => (Number(id.slice(1)) % 3 === 0 ? null : MODEL)),
    );
    for (const index of [1, 98, 101, 199, 200, 248]) {
      const vector = Float32Array.of(Math.cos(angle(index)), Math.sin(angle(index)), 0, 0);
      const [nearest] = await memories.searchVector(TENANT, vector, MODEL, CURRENT, 1);
      expect(nearest?.id).toBe(batch[index]?.id);
    }
    const [found] = await memories.searchText(TENANT, 'm249', CURRENT, 1);
    expect(found?.id).toBe('m249');
  });

  it('treats a retried record (same id, same content) as a duplicate, not an error', async () => {
    const { memories } = context;
    const input = newMemory('a', { vector: [0, 1, 0, 0] });
    const [first] = await insertAll(memories, [input]);
    const retry = await memories.insertMemories(TENANT, [input]);
    expect(retry).toStrictEqual({ inserted: [], duplicates: [{ requestedId: 'a', existing: first }] });
  });

  it('rejects an id the tenant already has, writing nothing of the batch', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('taken', { text: 'first text' })]);
    const batch = [
      newMemory('fresh-1', { text: 'banana bread', vector: [1, 0, 0, 0] }),
      newMemory('taken', { text: 'different text' }),
      newMemory('fresh-2', { text: 'banana split' }),
    ];
    const error = await expectCode(
      memories.insertMemories(TENANT, batch),
      'validation_failed',
      ValidationError,
    );
    expect((error as ValidationError).issues[0]?.path).toEqual(['records', 1, 'id']);
    expect(idsOf(await everything(memories))).toEqual(['taken']);
    expect(await memories.searchText(TENANT, 'banana', CURRENT, 10)).toEqual([]);
    expect(await memories.searchVector(TENANT, Float32Array.of(1, 0, 0, 0), MODEL, CURRENT, 10)).toEqual([]);
  });

  it('rejects an id repeated within a batch, writing nothing', async () => {
    const { memories } = context;
    const batch = [
      newMemory('x', { text: 'one' }),
      newMemory('y', { text: 'two' }),
      newMemory('x', { text: 'three' }),
    ];
    await expectCode(memories.insertMemories(TENANT, batch), 'validation_failed', ValidationError);
    expect(await everything(memories)).toEqual([]);
  });

  it('rejects a bad timestamp or vector in the middle of a batch, writing nothing', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('seed', { vector: [1, 0, 0, 0] })]);
    const batches = [
      [newMemory('a'), newMemory('b', { createdAt: 'not a date' }), newMemory('c')],
      [newMemory('a', { vector: [1, 0, 0, 0] }), newMemory('b', { vector: [1, 0, 0] }), newMemory('c')],
      [newMemory('a', { vector: [1, 0, 0, 0] }), newMemory('b', { vector: [1, Number.NaN, 0, 0] })],
      [newMemory('a', { vector: [1, 0, 0, 0] }), newMemory('b', { vector: [] })],
    ];
    for (const batch of batches) {
      await expectCode(memories.insertMemories(TENANT, batch), 'validation_failed', ValidationError);
    }
    expect(idsOf(await everything(memories))).toEqual(['seed']);
    expect(await memories.findUnembedded(TENANT, MODEL, 10)).toEqual([]);
  });

  it('fixes a model’s dimensions with its first vector, per tenant', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('a', { vector: [1, 0, 0, 0] })]);
    await expectCode(
      memories.insertMemories(TENANT, [newMemory('b', { vector: [1, 0] })]),
      'validation_failed',
      ValidationError,
    );
    // A new model starts its own space; within one batch the first vector decides.
    const mixed = [
      { ...newMemory('c'), embedding: { model: 'small', vector: Float32Array.of(1, 0) } },
      { ...newMemory('d'), embedding: { model: 'small', vector: Float32Array.of(1, 0, 0) } },
    ];
    await expectCode(memories.insertMemories(TENANT, mixed), 'validation_failed', ValidationError);
    expect(idsOf(await everything(memories))).toEqual(['a']);
  });

  it('hands out copies: mutating results or inputs never changes the store', async () => {
    const { memories } = context;
    const input = newMemory('a', { topics: ['t'], metadata: { nested: { n: 1 } }, vector: [1, 0, 0, 0] });
    const { inserted } = await memories.insertMemories(TENANT, [input]);
    const snapshot = await memories.getMemories(TENANT, ['a']);
    input.topics.push('changed');
    (input.metadata.nested as { n: number }).n = 2;
    input.embedding?.vector.set([0, 1, 0, 0]);
    for (const record of [...inserted, ...snapshot]) {
      record.topics.push('mutated');
      record.metadata.extra = true;
      record.text = 'mutated';
    }
    const [stored] = await memories.getMemories(TENANT, ['a']);
    expect(stored).toStrictEqual(
      expectedRecord(newMemory('a', { topics: ['t'], metadata: { nested: { n: 1 } }, vector: [1, 0, 0, 0] })),
    );
    const [hit] = await memories.searchVector(TENANT, Float32Array.of(1, 0, 0, 0), MODEL, CURRENT, 1);
    expect(hit?.distance).toBeCloseTo(0, 5);
    const listed = await memories.listMemories(TENANT, CURRENT, { limit: 1, offset: 0 });
    listed.memories[0]?.entities.push('mutated');
    expect((await memories.getMemories(TENANT, ['a']))[0]?.entities).toEqual([]);
  });

  it('rejects every call with StoreError once the store is closed', async () => {
    const { store, memories } = context;
    await insertAll(memories, [newMemory('a')]);
    await store.close();
    const vector = Float32Array.of(1, 0, 0, 0);
    const calls: Promise<unknown>[] = [
      memories.insertMemories(TENANT, [newMemory('b')]),
      memories.getMemories(TENANT, ['a']),
      memories.supersede(TENANT, 'a', newMemory('c')),
      memories.deleteMemories(TENANT, ['a']),
      memories.listMemories(TENANT, CURRENT, { limit: 1, offset: 0 }),
      memories.searchText(TENANT, 'memory', CURRENT, 1),
      memories.searchVector(TENANT, vector, MODEL, CURRENT, 1),
      memories.recordAccess(TENANT, ['a'], '2026-01-02T00:00:00.000Z'),
      memories.findUnembedded(TENANT, MODEL, 1),
      memories.setEmbeddings(TENANT, MODEL, [{ id: 'a', vector }]),
    ];
    for (const call of calls) expect(await rejectionOf(call)).toBeInstanceOf(StoreError);
  });
}
