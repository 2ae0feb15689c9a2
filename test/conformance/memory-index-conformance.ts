import { expect, it } from 'vitest';
import type { MemoryFilter, MemoryRecord } from '../../src/core/schemas/memory-record.js';
import { seededRandom } from '../../src/core/vectors/seeded-random.js';
import type { EngramStore } from '../../src/stores/engram-store.js';
import { compileMemoryFilter } from '../../src/stores/memory-filter.js';
import type { MemoryRecordStore } from '../../src/stores/memory-record-store.js';
import { cosineDistance, vectorNorm } from '../../src/stores/memory-rules.js';
import {
  CURRENT,
  day,
  EVERYTHING,
  everything,
  idsOf,
  insertAll,
  type MemoryConformanceContext,
  MODEL,
  newMemory,
  T0,
  TENANT,
} from './memory-record-fixtures.js';

/** More records than any driver scans exactly (5,000), so that searches take the index path. */
const COUNT = 9_000;
const DIMENSIONS = 16;

/** Clustered vectors (as embeddings are), so that an index has structure to find. */
function vectors(count: number, seed: number): number[][] {
  const random = seededRandom(seed);
  const centres = Array.from({ length: 40 }, () => Array.from({ length: DIMENSIONS }, () => random() - 0.5));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random() * centres.length)] ?? [];
    return centre.map((value) => Math.fround(value + (random() - 0.5) * 0.3));
  });
}

/**
 * 9,000 records, two thirds of `user-1` (6,000: past the exact threshold) and one third of
 * `user-2`; every tenth pinned; every fourth with topic `t2`. Returns their vectors by id.
 */
async function seedLarge(memories: MemoryRecordStore): Promise<Map<string, number[]>> {
  const byId = new Map<string, number[]>();
  const all = vectors(COUNT, 1);
  for (let start = 0; start < COUNT; start += 1_000) {
    const batch = all.slice(start, start + 1_000).map((vector, offset) => {
      const index = start + offset;
      const id = `r${String(index).padStart(5, '0')}`;
      byId.set(id, vector);
      return newMemory(id, {
        vector,
        userId: index % 3 === 2 ? 'user-2' : 'user-1',
        pinned: index % 10 === 0,
        topics: index % 4 === 0 ? ['t1', 't2'] : ['t1'],
      });
    });
    await insertAll(memories, batch);
  }
  // Drivers train vector indexes (and may build others) in the background, starting with the first
  // search: let that finish, so that the tests check the trained index, not only the exact scan
  // that answers meanwhile.
  await memories.searchVector(TENANT, Float32Array.from(all[0] ?? []), MODEL, CURRENT, 1);
  await memories.searchText(TENANT, 'memory', CURRENT, 1);
  await backgroundWork();
  return byId;
}

/** Event-loop turns enough for background builds over the 9,000 records (which take about 0.1 s). */
async function backgroundWork(): Promise<void> {
  for (let turn = 0; turn < 200; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** The exact nearest ids among `records` that `filter` accepts, by the contract's rules. */
function exactNearest(
  records: readonly MemoryRecord[],
  vectorsById: Map<string, number[]>,
  query: number[],
  filter: MemoryFilter,
  limit: number,
): string[] {
  const accept = compileMemoryFilter(filter);
  const queryNorm = vectorNorm(query);
  return records
    .filter((record) => accept(record) && record.embeddingModel === MODEL && vectorsById.has(record.id))
    .map((record) => {
      const vector = vectorsById.get(record.id) ?? [];
      const dot = vector.reduce((sum, value, axis) => sum + value * (query[axis] ?? 0), 0);
      return { id: record.id, distance: cosineDistance(dot, vectorNorm(vector), queryNorm) };
    })
    .sort((left, right) => left.distance - right.distance || (left.id < right.id ? -1 : 1))
    .slice(0, limit)
    .map((hit) => hit.id);
}

const search = (memories: MemoryRecordStore, vector: number[], filter: MemoryFilter, limit: number) =>
  memories.searchVector(TENANT, Float32Array.from(vector), MODEL, filter, limit);

const USER_1: MemoryFilter = { ...CURRENT, userId: { eq: 'user-1' } };

/**
 * searchVector over collections large enough for an index: a stored vector finds its own record
 * first, filters hold, deleted and superseded records never come back, and (where the backend can
 * be opened twice) another connection's writes are seen. `connectAgain` opens a second store on
 * the backend of the one under test.
 */
export function describeMemoryIndexConformance(
  context: MemoryConformanceContext,
  connectAgain?: () => Promise<EngramStore>,
): void {
  it('finds a stored vector’s own record first, and agrees with exact search where filters are narrow', async () => {
    const { memories } = context;
    const vectorsById = await seedLarge(memories);
    const ids = [...vectorsById.keys()];
    for (const id of ids.filter((_, index) => index % 450 === 1)) {
      const vector = vectorsById.get(id) ?? [];
      const [first] = await search(memories, vector, CURRENT, 10);
      expect(first?.id).toBe(id);
      expect(first?.distance).toBeCloseTo(0, 5);
      const mine = await search(memories, vector, USER_1, 10);
      if (id.endsWith('1') || id.endsWith('4')) expect(mine.length).toBe(10);
    }
    const queries = vectors(12, 2);
    const records = await everything(memories);
    // Narrow filters (at most 5,000 records) are searched exactly.
    const narrow: MemoryFilter[] = [
      { ...CURRENT, userId: { eq: 'user-2' } },
      { ...CURRENT, pinned: true },
      { ...CURRENT, topics: { eq: 't2' } },
      { ...CURRENT, ids: ids.filter((_, index) => index % 97 === 0) },
    ];
    for (const filter of narrow) {
      for (const query of queries.slice(0, 3)) {
        const hits = await search(memories, query, filter, 15);
        expect(idsOf(hits)).toEqual(exactNearest(records, vectorsById, query, filter, 15));
      }
    }
  });

  it('honours broad filters on the index path, with high recall of the exact answer', async () => {
    const { memories } = context;
    const vectorsById = await seedLarge(memories);
    const records = await everything(memories);
    const byId = new Map(records.map((record) => [record.id, record]));
    let found = 0;
    let wanted = 0;
    for (const query of vectors(20, 3)) {
      for (const filter of [USER_1, { ...CURRENT, topics: { eq: 't1' } }, { ...USER_1, pinned: false }]) {
        const hits = await search(memories, query, filter, 20);
        expect(hits).toHaveLength(20);
        const accept = compileMemoryFilter(filter);
        for (const [rank, hit] of hits.entries()) {
          const record = byId.get(hit.id);
          expect(record && accept(record)).toBe(true);
          expect(hit.distance).toBeGreaterThanOrEqual(hits[rank - 1]?.distance ?? 0);
        }
        const exact = exactNearest(records, vectorsById, query, filter, 20);
        found += exact.filter((id) => hits.some((hit) => hit.id === id)).length;
        wanted += exact.length;
      }
    }
    expect(found / wanted).toBeGreaterThanOrEqual(0.9);
  });

  it('never returns deleted records, nor superseded ones unless asked for', async () => {
    const { memories } = context;
    const vectorsById = await seedLarge(memories);
    const ids = [...vectorsById.keys()];
    const deleted = ids.filter((_, index) => index % 50 === 3);
    const superseded = ids.filter((_, index) => index % 50 === 7);
    expect(await memories.deleteMemories(TENANT, deleted)).toBe(deleted.length);
    const fresh = vectors(superseded.length, 4);
    for (const [index, id] of superseded.entries()) {
      const vector = fresh[index] ?? [];
      await memories.supersede(TENANT, id, newMemory(`${id}-v2`, { text: `replaced ${id}`, vector }));
      vectorsById.set(`${id}-v2`, vector);
    }
    for (const id of [...deleted.slice(0, 20), ...superseded.slice(0, 20)]) {
      const vector = vectorsById.get(id) ?? [];
      const hits = await search(memories, vector, CURRENT, 50);
      expect(hits).toHaveLength(50);
      expect(idsOf(hits).filter((hit) => deleted.includes(hit) || superseded.includes(hit))).toEqual([]);
    }
    for (const id of superseded.slice(0, 10)) {
      expect((await search(memories, vectorsById.get(id) ?? [], EVERYTHING, 1))[0]?.id).toBe(id);
      expect((await search(memories, vectorsById.get(`${id}-v2`) ?? [], CURRENT, 1))[0]?.id).toBe(`${id}-v2`);
    }
  });

  it('follows re-embedding: a record is found by its new vector, not its old one', async () => {
    const { memories } = context;
    const vectorsById = await seedLarge(memories);
    const moved = [...vectorsById.keys()].filter((_, index) => index % 300 === 5);
    const fresh = vectors(moved.length, 5);
    await memories.setEmbeddings(
      TENANT,
      MODEL,
      moved.map((id, index) => ({ id, vector: Float32Array.from(fresh[index] ?? []) })),
    );
    for (const [index, id] of moved.entries()) {
      expect((await search(memories, fresh[index] ?? [], CURRENT, 1))[0]?.id).toBe(id);
      const byOld = await search(memories, vectorsById.get(id) ?? [], CURRENT, 1);
      expect(byOld[0]?.id).not.toBe(id);
    }
  });

  it.skipIf(connectAgain === undefined)('sees writes made through another connection', async () => {
    const { memories } = context;
    const vectorsById = await seedLarge(memories);
    const ids = [...vectorsById.keys()];
    const probe = vectorsById.get(ids[10] ?? '') ?? [];
    expect((await search(memories, probe, CURRENT, 1))[0]?.id).toBe(ids[10]); // the index is built
    const other = await (connectAgain as () => Promise<EngramStore>)();
    try {
      const [added] = vectors(1, 6);
      await insertAll(other.memories, [newMemory('added-elsewhere', { vector: added ?? [] })]);
      await other.memories.deleteMemories(TENANT, [ids[10] ?? '']);
      await other.memories.supersede(TENANT, ids[20] ?? '', newMemory('replaced-elsewhere', { text: 'new' }));
      expect((await search(memories, added ?? [], CURRENT, 1))[0]?.id).toBe('added-elsewhere');
      expect(idsOf(await search(memories, probe, CURRENT, 20))).not.toContain(ids[10]);
      const replaced = await search(memories, vectorsById.get(ids[20] ?? '') ?? [], CURRENT, 20);
      expect(idsOf(replaced)).not.toContain(ids[20]);
    } finally {
      await other.close();
    }
  });

  it('keeps counts and text search exact through every write, from this connection or another', async () => {
    const { memories } = context;
    await seedLarge(memories);
    const userOne: MemoryFilter = { ...CURRENT, userId: { eq: 'user-1' } };
    const accessed: MemoryFilter = { ...CURRENT, lastAccessed: { gt: T0 } };
    const counts = async () =>
      Promise.all([userOne, EVERYTHING, accessed].map((filter) => memories.countMemories(TENANT, filter)));
    const found = async (query: string, filter = CURRENT) =>
      idsOf(await memories.searchText(TENANT, query, filter, 20));
    expect(await counts()).toEqual([6_000, 9_000, 0]);
    expect(await found('r00003')).toEqual(['r00003']);
    const other = await connectAgain?.();
    try {
      // Each round writes through one connection; the store under test must see every change.
      for (const [round, writer] of [context.store, ...(other ? [other] : [])].entries()) {
        const [gone, old] = round === 0 ? ['r00000', 'r00001'] : ['r00003', 'r00004'];
        // Counts before the round: user-1 current, everything, accessed since T0.
        const [user, all, seen] = [6_000, 9_000 + round, round];
        await insertAll(writer.memories, [newMemory(`added-${round}`, { text: `kayak trip ${round}` })]);
        expect(await counts()).toEqual([user + 1, all + 1, seen]);
        expect(await found('kayak')).toContain(`added-${round}`);
        await writer.memories.deleteMemories(TENANT, [gone]);
        expect(await counts()).toEqual([user, all, seen]);
        expect(await found(gone)).toEqual([]);
        await writer.memories.supersede(TENANT, old, newMemory(`replaced-${round}`, { text: 'kayak' }));
        expect(await counts()).toEqual([user, all + 1, seen]);
        expect(await found(old)).toEqual([]);
        expect(await found(old, EVERYTHING)).toEqual([old]);
        await writer.memories.recordAccess(TENANT, [`added-${round}`], day(1));
        expect(await counts()).toEqual([user, all + 1, seen + 1]);
      }
    } finally {
      await other?.close();
    }
  });
}
