import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { MemoryFilter } from '../../src/core/schemas/memory-record.js';
import { seededRandom } from '../../src/core/vectors/seeded-random.js';
import { createExactScanCache } from '../../src/stores/postgres/exact-scan-cache.js';
import { createPostgresStore, type PostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { CURRENT, insertAll, MODEL, newMemory, TENANT } from '../conformance/memory-record-fixtures.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('exact_scan_cache');
const DIMENSIONS = 4;

describe.skipIf(database === null)('PostgreSQL exact vector scans kept in process', () => {
  const { url, schema, truncate } = database ?? { url: '', schema: '', truncate: async () => {} };
  const stores: PostgresStore[] = [];
  const server = async () => {
    const store = await createPostgresStore({
      connectionString: url,
      schema,
      inProcessVectorIndex: false,
      poolSize: 2,
    });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  const random = seededRandom(11);
  const randomVector = () => Array.from({ length: DIMENSIONS }, () => random() - 0.5);
  /** Brute force over what was written: cosine distances of the user's current records, ties by id. */
  const live = new Map<string, { vector: number[]; userId: string }>();
  const expected = (query: number[], userId: string, limit: number) => {
    const norm = (vector: number[]) => Math.hypot(...vector);
    return [...live]
      .filter(([, record]) => record.userId === userId)
      .map(([id, { vector }]) => ({
        id,
        distance:
          1 -
          vector.reduce((sum, value, axis) => sum + value * (query[axis] as number), 0) /
            (norm(vector) * norm(query)),
      }))
      .sort((left, right) => left.distance - right.distance || (left.id < right.id ? -1 : 1))
      .slice(0, limit);
  };
  const write = async (store: PostgresStore, count: number, prefix: string) => {
    const records = Array.from({ length: count }, (_, index) => {
      const vector = randomVector().map((value) => Math.fround(value));
      const userId = index % 3 === 0 ? 'user-2' : 'user-1';
      const id = `${prefix}-${String(index).padStart(3, '0')}`;
      live.set(id, { vector, userId });
      return newMemory(id, { vector, userId });
    });
    await insertAll(store.memories, records);
  };
  const filterOf = (userId: string): MemoryFilter => ({ ...CURRENT, userId: { eq: userId } });
  const search = async (store: PostgresStore, userId = 'user-1', limit = 7) => {
    const query = randomVector();
    const before = store.roundTrips();
    const hits = await store.memories.searchVector(
      TENANT,
      Float32Array.from(query),
      MODEL,
      filterOf(userId),
      limit,
    );
    const want = expected(query, userId, limit);
    expect(hits.map((hit) => hit.id)).toEqual(want.map((hit) => hit.id));
    expect(hits.map((hit) => hit.distance)).toEqual(want.map((hit) => expect.closeTo(hit.distance, 5)));
    return store.roundTrips() - before;
  };

  it('answers from the kept candidates once a filter repeats, exactly as the SQL scan', async () => {
    await truncate();
    live.clear();
    const store = await server();
    await write(store, 300, 'a');
    await search(store); // the SQL scan (and the store's first statements)
    await search(store); // loads the candidates
    const kept = await search(store);
    for (let round = 0; round < 5; round += 1) expect(await search(store)).toBe(kept);
    // Another filter: scanned in SQL when first seen, then from its own candidates, one statement less.
    const scanned = await search(store, 'user-2');
    await search(store, 'user-2');
    expect(await search(store, 'user-2', 3)).toBe(scanned - 1);
    expect(kept).toBe(scanned - 1);
  });

  it('sees on one server the next search after a write, a delete or a new version on another', async () => {
    await truncate();
    live.clear();
    const a = await server();
    const b = await server();
    await write(a, 120, 'b');
    for (let round = 0; round < 3; round += 1) await search(b);
    // A new record at the query's own direction must come first on B's very next search.
    const query = randomVector();
    live.set('near', { vector: query.map((value) => Math.fround(value)), userId: 'user-1' });
    await insertAll(a.memories, [newMemory('near', { vector: query.map((value) => Math.fround(value)) })]);
    const hits = await b.memories.searchVector(
      TENANT,
      Float32Array.from(query),
      MODEL,
      filterOf('user-1'),
      3,
    );
    expect(hits[0]?.id).toBe('near');
    await search(b);
    await search(b);
    await a.memories.deleteMemories(TENANT, ['near']);
    live.delete('near');
    const after = await b.memories.searchVector(
      TENANT,
      Float32Array.from(query),
      MODEL,
      filterOf('user-1'),
      3,
    );
    expect(after.map((hit) => hit.id)).not.toContain('near');
    await search(b);
    const [old] = [...live.keys()].filter((id) => live.get(id)?.userId === 'user-1');
    const replacement = randomVector().map((value) => Math.fround(value));
    await a.memories.supersede(TENANT, old as string, newMemory('replaced', { vector: replacement }));
    live.delete(old as string);
    live.set('replaced', { vector: replacement, userId: 'user-1' });
    for (let round = 0; round < 3; round += 1) await search(b);
  });

  it('leaves candidates of more floats than it may load to the SQL scan', async () => {
    await truncate();
    live.clear();
    const store = await server();
    await write(store, 30, 'c');
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await client.connect();
    try {
      const database = {
        query: async (sql: string, values?: unknown[]) => (await client.query(sql, values)).rows,
      };
      const [{ revision } = { revision: 0 }] = await database.query(
        'SELECT revision FROM memory_revisions WHERE tenant_id = $1',
        [TENANT],
      );
      const filter = filterOf('user-1');
      const candidates = [...live.values()].filter((record) => record.userId === 'user-1').length;
      const query = Float32Array.from(randomVector());
      const scan = async (loadedFloats: number) => {
        const scans = createExactScanCache(database, loadedFloats);
        const searches = [];
        for (let round = 0; round < 3; round += 1) {
          searches.push(await scans(TENANT, MODEL, filter, Number(revision), candidates, query, 5));
        }
        return searches;
      };
      // Within the limit: the first sighting scans in SQL (null), the next ones answer in process.
      const [first, second, third] = await scan(candidates * DIMENSIONS);
      expect(first).toBeNull();
      expect(second?.map((hit) => hit.id)).toEqual(expected([...query], 'user-1', 5).map((hit) => hit.id));
      expect(third).toEqual(second);
      // One float over it: never loaded.
      expect(await scan(candidates * DIMENSIONS - 1)).toEqual([null, null, null]);
    } finally {
      await client.end();
    }
  });
});
