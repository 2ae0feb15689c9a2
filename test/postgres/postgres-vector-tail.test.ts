import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresDatabase, type PostgresDatabase } from '../../src/stores/postgres/postgres-database.js';
import { createPostgresStore, type PostgresStore } from '../../src/stores/postgres/postgres-store.js';
import {
  createPostgresVectorSearch,
  EXACT_SEARCH_LIMIT,
} from '../../src/stores/postgres/postgres-vector-search.js';
import { CURRENT, idsOf, MODEL, newMemory, TENANT } from '../conformance/memory-record-fixtures.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('vector_tail');

/**
 * Vectors of 4 dimensions around two axes, at graded distances from the query [0, 0, 1, 0] (a
 * graph search needs a gradient to follow: with every seed equally far it can stop on the plateau).
 */
const spread = (index: number) => [Math.cos(index), Math.sin(index), (index % 50) / 100, 0.2];
/** Vectors near the query, nearer for a smaller index. */
const near = (index: number) => [0.01 * (index + 1), 0, 1, 0];
const QUERY = Float32Array.from([0, 0, 1, 0]);

describe.skipIf(database === null)('PostgreSQL vectors written outside the graph (the tail)', () => {
  const { url, schema } = database ?? { url: '', schema: '' };
  let seeder: PostgresStore;
  let sql: pg.Client;
  const query = async (text: string, parameters: unknown[] = []) => (await sql.query(text, parameters)).rows;
  /** Whether each of `ids`' vectors was written into the graph by the insert itself (same transaction). */
  const insertedIndexed = async (ids: string[]) =>
    (
      await query(
        `SELECT e.indexed AND e.xmin = m.xmin AS direct FROM memories m JOIN memory_embeddings e ON e.memory_pk = m.pk
        WHERE m.id = ANY($1::text[]) ORDER BY m.id`,
        [ids],
      )
    ).map((row) => row.direct as boolean);
  const tailCount = async () =>
    Number((await query('SELECT count(*) AS n FROM memory_embeddings WHERE NOT indexed'))[0]?.n);

  beforeAll(async () => {
    // Past the exact-search limit, so that searches go through the HNSW index.
    // A quality other than the default, which the index must be built with.
    seeder = await createPostgresStore({
      connectionString: url,
      schema,
      inProcessVectorIndex: false,
      hnswEfConstruction: 48,
    });
    const total = EXACT_SEARCH_LIMIT + 100;
    for (let start = 0; start < total; start += 1_000) {
      await seeder.memories.insertMemories(
        TENANT,
        Array.from({ length: Math.min(1_000, total - start) }, (_, offset) =>
          newMemory(`seed-${start + offset}`, { vector: spread(start + offset) }),
        ),
      );
    }
    await seeder.memories.settled();
    sql = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await sql.connect();
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await seeder?.close();
  });

  it('builds the graph with the ef_construction the store was given', async () => {
    const [index] = await query(
      "SELECT reloptions FROM pg_class WHERE relname = 'memory_embeddings_hnsw_4' AND relnamespace = current_schema()::regnamespace",
    );
    expect(index?.reloptions).toEqual(['m=16', 'ef_construction=48']);
  });

  it('writes new vectors to the tail, moves them into the graph in the background', async () => {
    const ids = ['tail-0', 'tail-1', 'tail-2'];
    await seeder.memories.insertMemories(
      TENANT,
      ids.map((id, index) => newMemory(id, { vector: spread(index + 0.5) })),
    );
    await seeder.memories.settled();
    expect(await tailCount()).toBe(0);
    const rows = await query(
      `SELECT e.indexed, e.xmin = m.xmin AS same FROM memories m JOIN memory_embeddings e ON e.memory_pk = m.pk
      WHERE m.id = ANY($1::text[])`,
      [ids],
    );
    // Indexed now, by a later transaction than the insert: the write did not pay for the graph.
    expect(rows).toEqual(ids.map(() => ({ indexed: true, same: false })));
  });

  it('finds vectors still in the tail, and a store opened later moves them into the graph', async () => {
    const ids = ['near-0', 'near-1', 'near-2', 'near-3', 'near-4'];
    await seeder.memories.insertMemories(
      TENANT,
      ids.map((id, index) => newMemory(id, { vector: near(index) })),
    );
    await seeder.memories.settled();
    const reader = await createPostgresStore({ connectionString: url, schema, inProcessVectorIndex: false });
    try {
      // As a server that died before its indexer ran leaves them: outside the graph.
      await query(
        `UPDATE memory_embeddings SET indexed = false
        WHERE memory_pk IN (SELECT pk FROM memories WHERE id = ANY($1::text[]))`,
        [ids],
      );
      expect(await tailCount()).toBe(5);
      // The graph alone cannot return them; the reader (which writes nothing, so moves nothing)
      // finds them through its exact read of the tail.
      expect(idsOf(await reader.memories.searchVector(TENANT, QUERY, MODEL, CURRENT, 5))).toEqual(ids);
      expect(idsOf(await reader.memories.searchVector(TENANT, QUERY, MODEL, CURRENT, 2))).toEqual(
        ids.slice(0, 2),
      );
      expect(await tailCount()).toBe(5);
    } finally {
      await reader.close();
    }
    const resumer = await createPostgresStore({ connectionString: url, schema, inProcessVectorIndex: false });
    try {
      await resumer.memories.settled();
      expect(await tailCount()).toBe(0);
      expect(idsOf(await resumer.memories.searchVector(TENANT, QUERY, MODEL, CURRENT, 5))).toEqual(ids);
    } finally {
      await resumer.close();
    }
  });

  it('inserts into the graph at once when the tail is full', async () => {
    const blocked = ['seed-1', 'seed-2'];
    const writer = await createPostgresStore({
      connectionString: url,
      schema,
      inProcessVectorIndex: false,
      vectorTailLimit: 2,
    });
    const holder = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await holder.connect();
    try {
      // Two vectors in the tail, row-locked by another session so that no indexer moves them.
      await query(
        `UPDATE memory_embeddings SET indexed = false
        WHERE memory_pk IN (SELECT pk FROM memories WHERE id = ANY($1::text[]))`,
        [blocked],
      );
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM memory_embeddings WHERE NOT indexed FOR UPDATE`);
      await writer.memories.insertMemories(TENANT, [newMemory('full-0', { vector: spread(7.5) })]);
      await writer.memories.settled();
      expect(await insertedIndexed(['full-0'])).toEqual([true]);
      await holder.query('COMMIT');
      // Room again once the indexer has moved the two (the writer's next write starts it too late).
      await query('UPDATE memory_embeddings SET indexed = true WHERE NOT indexed');
      await writer.memories.insertMemories(TENANT, [newMemory('room-0', { vector: spread(8.5) })]);
      await writer.memories.settled();
      expect(await insertedIndexed(['room-0'])).toEqual([false]);
      expect(await tailCount()).toBe(0);
    } finally {
      await holder.end();
      await writer.close();
    }
    const always = await createPostgresStore({
      connectionString: url,
      schema,
      inProcessVectorIndex: false,
      vectorTailLimit: 0,
    });
    try {
      await always.memories.insertMemories(TENANT, [newMemory('limit-0', { vector: spread(9.5) })]);
      expect(await insertedIndexed(['limit-0'])).toEqual([true]);
    } finally {
      await always.close();
    }
  });

  it('runs the indexer only after a write that left vectors in the tail', async () => {
    const direct = await createPostgresStore({
      connectionString: url,
      schema,
      inProcessVectorIndex: false,
      vectorTailLimit: 0,
    });
    const tailed = await createPostgresStore({ connectionString: url, schema, inProcessVectorIndex: false });
    /** Database round trips of one single-vector insert and the background work it starts. */
    const tripsOf = async (store: PostgresStore, id: string, index: number) => {
      const before = store.roundTrips();
      await store.memories.insertMemories(TENANT, [newMemory(id, { vector: spread(index) })]);
      await store.memories.settled();
      return store.roundTrips() - before;
    };
    try {
      // The first write of a store checks that the index exists; compare the writes after it.
      await tripsOf(direct, 'direct-warm', 20.5);
      await tripsOf(tailed, 'tailed-warm', 21.5);
      const withoutTail = await tripsOf(direct, 'direct-1', 22.5);
      const withTail = await tripsOf(tailed, 'tailed-1', 23.5);
      // The same insert; the tailed one adds the indexer's passes (one moves the row, each worker
      // then finds nothing), the direct one none.
      expect(withTail - withoutTail).toBeGreaterThanOrEqual(3);
      expect(await tripsOf(direct, 'direct-2', 24.5)).toBe(withoutTail);
    } finally {
      await Promise.all([direct.close(), tailed.close()]);
    }
  });

  it('counts the candidates of a filter once per memory revision', async () => {
    const pool = await openPostgresDatabase({ connectionString: url, schema, poolSize: 1 });
    const statements: string[] = [];
    const spied: PostgresDatabase = {
      ...pool,
      query: (text, parameters) => {
        statements.push(text);
        return pool.query(text, parameters);
      },
    };
    const vectors = await createPostgresVectorSearch(spied, true, () => {});
    /** Which way one search went: through the graph (over 5,000 candidates) or exactly. */
    const way = async () => {
      statements.length = 0;
      await vectors.nearest(TENANT, QUERY, MODEL, 4, CURRENT, 5);
      return statements.some((text) => text.includes('UNION ALL')) ? 'graph' : 'exact';
    };
    const moveRevision = () => query("UPDATE memory_revisions SET revision = nextval('memory_revision_seq')");
    const seeds = "SELECT pk FROM memories WHERE id LIKE 'seed-%' ORDER BY pk LIMIT 300";
    try {
      expect(await way()).toBe('graph');
      // Below the limit behind the driver's back, without moving the revision (the change-log
      // triggers, which move it for any writer, switched off for this transaction): the count stands.
      await query('BEGIN');
      await query('SET LOCAL session_replication_role = replica');
      await query(`UPDATE memories SET valid_to = valid_from WHERE pk IN (${seeds})`);
      await query('COMMIT');
      expect(await way()).toBe('graph');
      // Every write through a driver moves the revision: then it counts again.
      await moveRevision();
      expect(await way()).toBe('exact');
    } finally {
      await query(`UPDATE memories SET valid_to = NULL WHERE pk IN (${seeds})`);
      await moveRevision();
      await pool.close();
    }
  });
});

if (database === null) {
  describe.skip('PostgreSQL vector tail (PostgreSQL unreachable)', () => it('needs PostgreSQL', () => {}));
}
