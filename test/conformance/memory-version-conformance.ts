import { expect, it } from 'vitest';
import { EngramError, NotFoundError, ValidationError } from '../../src/core/errors.js';
import {
  CURRENT,
  day,
  EVERYTHING,
  everything,
  expectCode,
  idsOf,
  insertAll,
  type MemoryConformanceContext,
  MODEL,
  newMemory,
  TENANT,
} from './memory-record-fixtures.js';

const unit = (...values: number[]) => Float32Array.from(values);

/** Merges (supersede chains), deletion and its index cleanup, access counting, re-embedding. */
export function describeMemoryVersionConformance(context: MemoryConformanceContext): void {
  it('moves its memory revision on every write of records or vectors, never on reads or access', async () => {
    const { memories } = context;
    // Optional in the contract; every driver of this repository keeps one (caches rely on it).
    const revision = () => (memories.memoryRevision as (tenant: string) => Promise<string>)(TENANT);
    const seen = new Set<string>([await revision()]);
    const moved = async () => {
      const now = await revision();
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    };
    await insertAll(memories, [newMemory('r1', { text: 'lives in Porto' })]);
    await moved();
    await memories.supersede(TENANT, 'r1', newMemory('r2', { text: 'lives in Lisbon', validFrom: day(1) }));
    await moved();
    await memories.setEmbeddings(TENANT, MODEL, [{ id: 'r2', vector: unit(0, 1, 0, 0) }]);
    await moved();
    const unchanged = await revision();
    await memories.recordAccess(TENANT, ['r2'], day(2));
    await memories.getMemories(TENANT, ['r1', 'r2']);
    await memories.listMemories(TENANT, CURRENT, { limit: 10, offset: 0 });
    await memories.searchText(TENANT, 'Lisbon', CURRENT, 10);
    expect(await revision()).toBe(unchanged);
    await memories.deleteMemories(TENANT, ['r1']);
    await moved();
  });

  it('supersedes v1 → v2 → v3, closing each old version in the same step', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('v1', { text: 'lives in Porto', validFrom: day(0) })]);
    const v2 = await memories.supersede(
      TENANT,
      'v1',
      newMemory('v2', { text: 'lives in Lisbon', validFrom: day(10) }),
    );
    expect(v2).toMatchObject({
      id: 'v2',
      supersedes: 'v1',
      supersededBy: null,
      validFrom: day(10),
      validTo: null,
    });
    const v3 = await memories.supersede(
      TENANT,
      'v2',
      newMemory('v3', { text: 'lives in Faro', validFrom: day(20) }),
    );
    expect(v3).toMatchObject({ id: 'v3', supersedes: 'v2', validTo: null });
    const [one, two, three] = await memories.getMemories(TENANT, ['v1', 'v2', 'v3']);
    expect(one).toMatchObject({ supersedes: null, supersededBy: 'v2', validFrom: day(0), validTo: day(10) });
    expect(two).toMatchObject({ supersedes: 'v1', supersededBy: 'v3', validFrom: day(10), validTo: day(20) });
    expect(three).toStrictEqual(v3);
    expect(idsOf((await memories.listMemories(TENANT, CURRENT, { limit: 10, offset: 0 })).memories)).toEqual([
      'v3',
    ]);
    expect((await memories.listMemories(TENANT, EVERYTHING, { limit: 10, offset: 0 })).total).toBe(3);
    // Superseded text stays searchable, but only when asked for.
    expect(await memories.searchText(TENANT, 'Porto', CURRENT, 10)).toEqual([]);
    expect(idsOf(await memories.searchText(TENANT, 'Porto', EVERYTHING, 10))).toEqual(['v1']);
  });

  it('refuses to supersede a closed version, an absent one, or onto a taken id, changing nothing', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('v1', { text: 'first' })]);
    await memories.supersede(TENANT, 'v1', newMemory('v2', { text: 'second', validFrom: day(1) }));
    const conflict = await expectCode(
      memories.supersede(TENANT, 'v1', newMemory('v9', { text: 'x' })),
      'already_superseded',
    );
    expect(conflict).toBeInstanceOf(EngramError);
    expect((conflict as EngramError).category).toBe('conflict');
    await expectCode(memories.supersede(TENANT, 'absent', newMemory('v8')), 'not_found', NotFoundError);
    await expectCode(memories.supersede(TENANT, 'v2', newMemory('v1')), 'validation_failed', ValidationError);
    await expectCode(memories.supersede(TENANT, 'v2', newMemory('v2')), 'validation_failed', ValidationError);
    await memories.supersede(TENANT, 'v2', newMemory('v7', { vector: [1, 0] }));
    const wrongSize = memories.supersede(TENANT, 'v7', newMemory('v6', { vector: [1, 0, 0] }));
    await expectCode(wrongSize, 'validation_failed', ValidationError);
    const all = await everything(memories);
    expect(idsOf(all).sort()).toEqual(['v1', 'v2', 'v7']);
    expect(all.find((record) => record.id === 'v7')).toMatchObject({ validTo: null, supersedes: 'v2' });
  });

  it('does not deduplicate a replacement, and stores its embedding', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('a', { text: 'tea' }), newMemory('b', { text: 'coffee' })]);
    const replacement = newMemory('a2', { text: 'coffee', vector: [0, 0, 1, 0] });
    const stored = await memories.supersede(TENANT, 'a', replacement);
    expect(stored).toMatchObject({ id: 'a2', text: 'coffee', embeddingModel: MODEL });
    expect(idsOf(await memories.searchVector(TENANT, unit(0, 0, 1, 0), MODEL, CURRENT, 5))).toEqual(['a2']);
  });

  it('lets identical text be inserted again once its version is superseded', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('a', { text: 'owns a bike' })]);
    await memories.supersede(TENANT, 'a', newMemory('a2', { text: 'owns a car', validFrom: day(1) }));
    const again = await memories.insertMemories(TENANT, [newMemory('b', { text: 'owns a bike' })]);
    expect(idsOf(again.inserted)).toEqual(['b']);
    const current = await memories.insertMemories(TENANT, [newMemory('c', { text: 'owns a car' })]);
    expect(current.duplicates.map((duplicate) => duplicate.existing.id)).toEqual(['a2']);
  });

  it('deletes records with their index entries and counts only what it deleted', async () => {
    const { memories } = context;
    await insertAll(memories, [
      newMemory('a', { text: 'zebra crossing', vector: [1, 0, 0, 0] }),
      newMemory('b', { text: 'zebra stripes', vector: [0.9, 0.1, 0, 0] }),
      newMemory('c', { text: 'lion pride' }),
    ]);
    await insertAll(memories, [newMemory('a', { text: 'zebra crossing' })], 'tenant-b');
    expect(await memories.deleteMemories(TENANT, ['a', 'a', 'missing', 'c'])).toBe(2);
    expect(await memories.deleteMemories(TENANT, ['a'])).toBe(0);
    expect(idsOf(await everything(memories))).toEqual(['b']);
    expect(idsOf(await memories.searchText(TENANT, 'zebra crossing lion', CURRENT, 10))).toEqual(['b']);
    expect(idsOf(await memories.searchVector(TENANT, unit(1, 0, 0, 0), MODEL, EVERYTHING, 10))).toEqual([
      'b',
    ]);
    expect(await memories.findUnembedded(TENANT, MODEL, 10)).toEqual([]);
    expect(idsOf(await memories.searchText('tenant-b', 'zebra', CURRENT, 10))).toEqual(['a']);
    // A deleted id is free again.
    expect(
      idsOf((await memories.insertMemories(TENANT, [newMemory('a', { text: 'new a' })])).inserted),
    ).toEqual(['a']);
  });

  it('deleting one version leaves the others as they are', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('v1', { text: 'one' })]);
    await memories.supersede(TENANT, 'v1', newMemory('v2', { text: 'two', validFrom: day(1) }));
    await memories.supersede(TENANT, 'v2', newMemory('v3', { text: 'three', validFrom: day(2) }));
    const before = await memories.getMemories(TENANT, ['v1', 'v3']);
    expect(await memories.deleteMemories(TENANT, ['v2'])).toBe(1);
    expect(await memories.getMemories(TENANT, ['v1', 'v2', 'v3'])).toStrictEqual(before);
  });

  it('counts accesses and sets lastAccessed, ignoring unknown ids', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('a'), newMemory('b', { text: 'b text' })]);
    await memories.recordAccess(TENANT, ['a', 'a', 'unknown'], '2026-03-01T12:00:00.000+01:00');
    await memories.recordAccess(TENANT, ['a'], '2026-03-02T00:00:00.000Z');
    const [a, b] = await memories.getMemories(TENANT, ['a', 'b']);
    expect(a).toMatchObject({ accessCount: 2, lastAccessed: '2026-03-02T00:00:00.000Z' });
    expect(b).toMatchObject({ accessCount: 0, lastAccessed: newMemory('b').lastAccessed });
  });

  it('counts accesses by `times` when given, and refuses a count that is not a positive integer', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('a'), newMemory('b', { text: 'b text' })]);
    await memories.recordAccess(TENANT, ['a', 'b', 'a'], '2026-03-01T00:00:00.000Z', 3);
    await memories.recordAccess(TENANT, ['a'], '2026-03-02T00:00:00.000Z');
    const [a, b] = await memories.getMemories(TENANT, ['a', 'b']);
    expect(a).toMatchObject({ accessCount: 4, lastAccessed: '2026-03-02T00:00:00.000Z' });
    expect(b).toMatchObject({ accessCount: 3, lastAccessed: '2026-03-01T00:00:00.000Z' });
    for (const times of [0, -1, 1.5, Number.NaN]) {
      await expect(memories.recordAccess(TENANT, ['a'], '2026-03-03T00:00:00.000Z', times)).rejects.toThrow(
        ValidationError,
      );
    }
    expect((await memories.getMemories(TENANT, ['a']))[0]?.accessCount).toBe(4);
  });

  it('lists what lacks a model’s vector, oldest first, and switches models with setEmbeddings', async () => {
    const { memories } = context;
    await insertAll(memories, [
      newMemory('new', { text: 'newest', createdAt: day(3), vector: [1, 0, 0, 0] }),
      newMemory('old-b', { text: 'old b', createdAt: day(1) }),
      newMemory('old-a', { text: 'old a', createdAt: day(1), vector: [0, 1, 0, 0] }),
      newMemory('mid', { text: 'middle', createdAt: day(2) }),
    ]);
    await memories.supersede(TENANT, 'mid', newMemory('mid-2', { text: 'middle again', createdAt: day(2) }));
    expect(await memories.findUnembedded(TENANT, MODEL, 10)).toEqual([
      { id: 'old-b', text: 'old b' },
      { id: 'mid-2', text: 'middle again' },
    ]);
    expect(idsOf(await memories.findUnembedded(TENANT, 'v2', 3))).toEqual(['old-a', 'old-b', 'mid-2']);
    expect(await memories.findUnembedded(TENANT, 'v2', 0)).toEqual([]);

    await memories.setEmbeddings(TENANT, 'v2', [
      { id: 'old-a', vector: unit(1, 1) },
      { id: 'new', vector: unit(1, 0) },
      { id: 'gone', vector: unit(0, 1) },
    ]);
    expect(
      (await memories.getMemories(TENANT, ['old-a', 'new'])).map((record) => record.embeddingModel),
    ).toEqual(['v2', 'v2']);
    // One embedding per record: the old model's vectors are gone.
    expect(await memories.searchVector(TENANT, unit(1, 0, 0, 0), MODEL, CURRENT, 10)).toEqual([]);
    expect(idsOf(await memories.searchVector(TENANT, unit(1, 0), 'v2', CURRENT, 10))).toEqual([
      'new',
      'old-a',
    ]);
    expect(idsOf(await memories.findUnembedded(TENANT, MODEL, 10))).toEqual([
      'old-a',
      'old-b',
      'mid-2',
      'new',
    ]);
    expect(idsOf(await memories.findUnembedded(TENANT, 'v2', 10))).toEqual(['old-b', 'mid-2']);

    const wrong = memories.setEmbeddings(TENANT, 'v2', [
      { id: 'old-b', vector: unit(0, 1) },
      { id: 'mid-2', vector: unit(0, 1, 0) },
    ]);
    await expectCode(wrong, 'validation_failed', ValidationError);
    expect(idsOf(await memories.findUnembedded(TENANT, 'v2', 10))).toEqual(['old-b', 'mid-2']);
  });
}
