import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  CURRENT,
  EVERYTHING,
  MODEL,
  newMemory,
  nextVersion,
  TENANT,
} from '../../../test/conformance/memory-record-fixtures.js';
import { queuedBy } from '../../../test/support/queued-turns.js';
import { withSeededSqliteFile } from '../../../test/support/seeded-sqlite-file.js';
import { useTemporaryDirectories } from '../../../test/support/temporary-directories.js';
import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { seededRandom } from '../../core/vectors/seeded-random.js';
import type { EngramStore } from '../engram-store.js';
import { compileStableMemoryFilter } from '../memory-filter.js';
import { cosineDistance, vectorNorm } from '../memory-rules.js';
import { openDatabase } from './open-database.js';
import { createSqliteMemoryRecordStore, type SqliteMemoryRecordStore } from './sqlite-memory-record-store.js';
import { createSqliteStore } from './sqlite-store.js';
import { SqliteVectorCache } from './sqlite-vector-cache.js';

// Each chunk of a load must wait in the shared queue of sliced work (`nextTurn`).
vi.mock('../../core/event-loop-slicer.js', async (importOriginal) =>
  (await import('../../../test/support/queued-turns.js')).recordingNextTurn(await importOriginal()),
);

const temporaryDirectory = useTemporaryDirectories('engram-sqlite-vector-cache-');
/** Six load chunks, and more than the 5,000 rows under which a collection scans exactly. */
const COUNT = 5_200;
const USER_2: MemoryFilter = { ...CURRENT, userId: { eq: 'user-2' } };

function vectors(count: number, seed: number): number[][] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Array.from({ length: 4 }, () => Math.fround(random() - 0.5)));
}

/** A file store holding `COUNT` memories with vectors (a third of them `user-2`'s); their vectors by id. */
async function seeded(
  vectorExtension: boolean,
): Promise<{ path: string; vectorsById: Map<string, number[]> }> {
  const path = join(temporaryDirectory(), 'engram.db');
  const store = await createSqliteStore({ path, vectorExtension });
  const vectorsById = new Map<string, number[]>();
  const all = vectors(COUNT, 1);
  for (let start = 0; start < COUNT; start += 1_000) {
    const batch = all.slice(start, start + 1_000).map((vector, offset) => {
      const id = `m${String(start + offset).padStart(5, '0')}`;
      vectorsById.set(id, vector);
      return newMemory(id, { vector, userId: (start + offset) % 3 === 2 ? 'user-2' : 'user-1' });
    });
    await store.memories.insertMemories(TENANT, batch);
  }
  await store.close();
  return { path, vectorsById };
}

/** The exact nearest current memories to `query` among `vectorsById` (ids with a `user` of `users`). */
function exactNearest(
  vectorsById: Map<string, number[]>,
  query: number[],
  limit: number,
  accept: (id: string) => boolean,
) {
  const queryNorm = vectorNorm(query);
  return [...vectorsById]
    .filter(([id]) => accept(id))
    .map(([id, vector]) => {
      const dot = vector.reduce((sum, value, axis) => sum + value * (query[axis] ?? 0), 0);
      return { id, distance: cosineDistance(dot, vectorNorm(vector), queryNorm) };
    })
    .sort((left, right) => left.distance - right.distance || (left.id < right.id ? -1 : 1))
    .slice(0, limit);
}

/** Whether the store's background work has finished, without waiting for it. */
function watchSettled(store: EngramStore): () => boolean {
  let done = false;
  void (store.memories as SqliteMemoryRecordStore).settled().then(() => {
    done = true;
  });
  return () => done;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('SqliteVectorCache', () => {
  it('holds at most maxHeld collections, dropping the least recently searched', async () => {
    const seed = async (writer: EngramStore) => {
      for (const tenant of ['t1', 't2', 't3'])
        await writer.memories.insertMemories(tenant, [newMemory(`${tenant}-m`, { vector: [1, 0, 0, 0] })]);
    };
    await withSeededSqliteFile(temporaryDirectory(), seed, (database) => {
      const cache = new SqliteVectorCache(database, 2);
      const first = cache.collection('t1', MODEL, 4);
      const second = cache.collection('t2', MODEL, 4);
      expect(cache.collection('t1', MODEL, 4)).toBe(first);
      cache.collection('t3', MODEL, 4);
      expect(cache.collection('t1', MODEL, 4)).toBe(first);
      expect(cache.collection('t2', MODEL, 4)).not.toBe(second);
    });
  });

  it('loads a small tenant at its first search: every search of it runs in process', async () => {
    const all = vectors(20, 5);
    const seed = async (writer: EngramStore) => {
      await writer.memories.insertMemories(
        TENANT,
        all.map((vector, index) => newMemory(`s${index}`, { vector })),
      );
    };
    await withSeededSqliteFile(temporaryDirectory(), seed, (database) => {
      const cache = new SqliteVectorCache(database);
      // It fits in the first chunk of the load, which the first call reads.
      const collection = cache.collection(TENANT, MODEL, 4);
      expect(collection?.size).toBe(20);
      const query = Float32Array.from(all[3] ?? []);
      expect(collection?.nearest(query, 1, () => true)[0]?.id).toBe('s3');
    });
  });

  for (const vectorExtension of [true, false]) {
    it(`answers the first searches exactly in SQL while the collection loads (vectorExtension ${vectorExtension})`, async () => {
      const { path, vectorsById } = await seeded(vectorExtension);
      const store = await createSqliteStore({ path, vectorExtension });
      try {
        let isSettled: (() => boolean) | undefined;
        const userOf = (id: string) => (Number(id.slice(1)) % 3 === 2 ? 'user-2' : 'user-1');
        for (const [index, query] of vectors(4, 2).entries()) {
          // The first search starts the load; none of them waits for it.
          const filter = index % 2 === 0 ? CURRENT : USER_2;
          const hits = await store.memories.searchVector(TENANT, Float32Array.from(query), MODEL, filter, 10);
          const accept = (id: string) => filter === CURRENT || userOf(id) === 'user-2';
          const exact = exactNearest(vectorsById, query, 10, accept);
          expect(hits.map((hit) => hit.id)).toEqual(exact.map((hit) => hit.id));
          for (const [rank, hit] of hits.entries())
            expect(hit.distance).toBeCloseTo(exact[rank]?.distance ?? 2, 5);
          // Microtasks only since the first search started the load: no load step has run yet.
          isSettled ??= watchSettled(store);
          expect(isSettled()).toBe(false);
        }
        await (store.memories as SqliteMemoryRecordStore).settled();
        expect(isSettled?.()).toBe(true);
        // Loaded: the collection answers (exactly here: user-2 holds fewer than 5,000 memories).
        const [query = []] = vectors(1, 3);
        const hits = await store.memories.searchVector(TENANT, Float32Array.from(query), MODEL, USER_2, 10);
        const exact = exactNearest(vectorsById, query, 10, (id) => userOf(id) === 'user-2');
        expect(hits.map((hit) => hit.id)).toEqual(exact.map((hit) => hit.id));
      } finally {
        await store.close();
      }
    });
  }

  it('loses and duplicates nothing written between load chunks, by this connection or another', async () => {
    const { path, vectorsById } = await seeded(true);
    const database = await openDatabase(path);
    // This connection's writes go through a store on it, and reach the cache as the store's own would.
    const mine = await createSqliteMemoryRecordStore(database);
    const cache = new SqliteVectorCache(database);
    const other = await createSqliteStore({ path });
    try {
      expect(cache.collection(TENANT, MODEL, 4)).toBeUndefined(); // starts the load
      let loaded = false;
      void cache.settled().then(() => {
        loaded = true;
      });
      await nextTurn(); // the first chunk (ids m00000–m00999) is read
      expect(loaded).toBe(false);
      const [added = [], theirs = [], moved = [], replacement = [], inPlace = []] = vectors(5, 9);
      // This connection: a new memory sorting before every chunk, and a deletion of a row read.
      await mine.insertMemories(TENANT, [newMemory('a-mine', { vector: added })]);
      await mine.deleteMemories(TENANT, ['m00010']);
      cache.afterWrite();
      await nextTurn(); // another chunk
      expect(loaded).toBe(false);
      expect(cache.collection(TENANT, MODEL, 4)).toBeUndefined(); // still loading: SQL answers
      // Another connection: an insert, a re-embedding of a row read, a supersession of one not yet read.
      await other.memories.insertMemories(TENANT, [newMemory('z-theirs', { vector: theirs })]);
      await other.memories.setEmbeddings(TENANT, MODEL, [{ id: 'm00020', vector: Float32Array.from(moved) }]);
      await other.memories.supersede(TENANT, 'm05000', newMemory('m05000-v2', { vector: replacement }));
      // And an in-place version (stable id) of a row read, which moves its vector.
      const update = nextVersion({ text: 'moved in place', vector: inPlace });
      await other.memories.updateMemory(TENANT, 'm00030', update);
      await cache.settled();
      expect(loaded).toBe(true);
      // 5,200 rows and more in chunks of 1,000: each chunk after the first in a turn of the queue.
      expect(queuedBy('step', 'sqlite-vector-cache')).toBeGreaterThanOrEqual(5);

      const collection = cache.collection(TENANT, MODEL, 4);
      expect(collection).toBeDefined();
      // Exactly the rows in the file, each once.
      const pks = database
        .prepare<[string, string], number>(
          'SELECT m.pk FROM memories m JOIN memory_embeddings e ON e.memory_pk = m.pk WHERE m.tenant_id = ? AND e.model = ? ORDER BY m.pk',
        )
        .pluck()
        .all(TENANT, MODEL);
      expect(pks).toHaveLength(COUNT + 2); // 5,200 seeded, 3 added, 1 deleted
      expect([...(collection?.keys() ?? [])].sort((left, right) => left - right)).toEqual(pks);
      // With the vectors and fields as they are now.
      const nearest = (vector: number[], filter: MemoryFilter, limit = 1) =>
        (collection?.nearest(Float32Array.from(vector), limit, compileStableMemoryFilter(filter)) ?? []).map(
          (hit) => hit.id,
        );
      expect(nearest(added, CURRENT)).toEqual(['a-mine']);
      expect(nearest(theirs, CURRENT)).toEqual(['z-theirs']);
      expect(nearest(moved, CURRENT)).toEqual(['m00020']);
      expect(nearest(replacement, CURRENT)).toEqual(['m05000-v2']);
      expect(nearest(inPlace, CURRENT)).toEqual(['m00030']);
      expect(nearest(vectorsById.get('m00030') ?? [], EVERYTHING)).not.toEqual(['m00030']);
      const old = vectorsById.get('m05000') ?? [];
      expect(nearest(old, EVERYTHING)).toEqual(['m05000']);
      expect(nearest(old, CURRENT, 5)).not.toContain('m05000');
      expect(nearest(vectorsById.get('m00010') ?? [], EVERYTHING, 5)).not.toContain('m00010');

      // Once loaded, writes reach the collection from either connection.
      await other.memories.deleteMemories(TENANT, ['z-theirs']);
      expect(cache.collection(TENANT, MODEL, 4)).toBe(collection);
      expect(nearest(theirs, CURRENT)).not.toEqual(['z-theirs']);
      await mine.deleteMemories(TENANT, ['a-mine']);
      cache.afterWrite();
      expect(nearest(added, CURRENT)).not.toEqual(['a-mine']);
    } finally {
      await other.close();
      database.close();
    }
  });
});
