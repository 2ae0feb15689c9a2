import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresDatabase } from '../../src/stores/postgres/postgres-database.js';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { EXACT_SEARCH_LIMIT } from '../../src/stores/postgres/postgres-vector-search.js';
import { CURRENT, idsOf, MODEL, newMemory, TENANT } from '../conformance/memory-record-fixtures.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('vector_index_build');

/** A distinct unit-ish vector of 4 dimensions per index. */
const vectorOf = (index: number) => [Math.cos(index), Math.sin(index), (index % 7) / 7, 1];

describe.skipIf(database === null)('PostgreSQL vector index build', () => {
  const { url, schema } = database ?? { url: '', schema: '' };

  it("refuses an ef_construction outside pgvector's range before connecting", async () => {
    for (const hnswEfConstruction of [16, 64.5, 1_001]) {
      await expect(
        createPostgresStore({ connectionString: url, schema, hnswEfConstruction }),
      ).rejects.toThrow('hnswEfConstruction must be an integer from 32 to 1,000');
    }
    for (const hnswEfSearch of [0, 40.5, 1_001]) {
      await expect(createPostgresStore({ connectionString: url, schema, hnswEfSearch })).rejects.toThrow(
        'hnswEfSearch must be an integer from 1 to 1,000',
      );
    }
  });

  it('searches the graph with ef_search 300 unless the store was given another', async () => {
    for (const [given, expected] of [
      [undefined, '300'],
      [123, '123'],
    ] as const) {
      const pool = await openPostgresDatabase({ connectionString: url, schema, hnswEfSearch: given });
      try {
        const [row] = await pool.query<{ value: string }>(
          "SELECT current_setting('hnsw.ef_search') AS value",
        );
        expect(row?.value).toBe(expected);
      } finally {
        await pool.close();
      }
    }
  });

  it('builds after the write returns: a build that fails is logged and fails no write', async () => {
    const seeder = await createPostgresStore({ connectionString: url, schema });
    const warnings: string[] = [];
    const writer = await createPostgresStore({
      connectionString: url,
      schema,
      statementTimeoutMs: 1_500,
      warn: (message) => warnings.push(message),
    });
    const blocker = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await blocker.connect();
    try {
      // Up to the exact-search limit: no index is due yet.
      for (let start = 0; start < EXACT_SEARCH_LIMIT; start += 1_000) {
        const batch = Array.from({ length: 1_000 }, (_, offset) =>
          newMemory(`m${start + offset}`, {
            text: `memory ${start + offset}`,
            vector: vectorOf(start + offset),
          }),
        );
        await seeder.memories.insertMemories(TENANT, batch);
      }
      await seeder.memories.settled();
      // Another transaction holds a lock that CREATE INDEX waits for (row writes are not blocked),
      // so the build runs into statement_timeout.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE memory_embeddings IN ROW EXCLUSIVE MODE');
      const inserted = await writer.memories.insertMemories(TENANT, [
        newMemory('last', { text: 'the last one', vector: [1, 0, 0, 0] }),
      ]);
      expect(idsOf(inserted.inserted)).toEqual(['last']);
      await writer.memories.settled();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('memory_embeddings_hnsw_4');
      await blocker.query('COMMIT');
      // The write stands and is found; searches stay exact without the index.
      const hits = await writer.memories.searchVector(
        TENANT,
        Float32Array.from([1, 0, 0, 0]),
        MODEL,
        CURRENT,
        1,
      );
      expect(idsOf(hits)).toEqual(['last']);
      const indexes = await blocker.query(
        "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'memory_embeddings_hnsw_4'",
      );
      expect(indexes.rows).toEqual([]);

      // Another server's next write builds it, in the background too.
      await seeder.memories.insertMemories(TENANT, [newMemory('after', { vector: [0, 1, 0, 0] })]);
      await seeder.memories.settled();
      const built = await blocker.query(
        "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'memory_embeddings_hnsw_4'",
      );
      expect(built.rows).toHaveLength(1);
      // engram's default ef_construction unless the store was given another.
      const [options] = (
        await blocker.query(
          "SELECT reloptions FROM pg_class WHERE relname = 'memory_embeddings_hnsw_4' AND relnamespace = current_schema()::regnamespace",
        )
      ).rows;
      expect(options?.reloptions).toEqual(['m=16', 'ef_construction=200']);
    } finally {
      await blocker.end();
      await Promise.all([seeder.close(), writer.close()]);
    }
  });
});

if (database === null) {
  describe.skip('PostgreSQL vector index build (PostgreSQL unreachable)', () =>
    it('needs PostgreSQL', () => {}));
}
