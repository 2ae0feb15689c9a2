import { describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import {
  CURRENT,
  idsOf,
  insertAll,
  MODEL,
  newMemory,
  TENANT,
} from '../conformance/memory-record-fixtures.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('exact_vectors');

describe.skipIf(database === null)('PostgreSQL store without pgvector', () => {
  const { url, schema } = database ?? { url: '', schema: '' };

  it('warns loudly once at start and searches vectors exactly in SQL', async () => {
    const warnings: string[] = [];
    const store = await createPostgresStore({
      connectionString: url,
      schema,
      vectorExtension: false,
      // The SQL scan, not the in-process mirror (which answers the same).
      inProcessVectorIndex: false,
      warn: (message) => warnings.push(message),
    });
    try {
      expect(store.vectorIndex).toBe('exact-scan');
      expect(store.memories.capabilities.vectorSearch).toBe('brute-force');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('pgvector is not installed');
      await insertAll(store.memories, [
        newMemory('same', { vector: [2, 0, 0, 0] }),
        newMemory('near', { vector: [1, 1, 0, 0] }),
        newMemory('orthogonal', { vector: [0, 0, 3, 0] }),
        newMemory('opposite', { vector: [-1, 0, 0, 0] }),
        newMemory('zero', { vector: [0, 0, 0, 0] }),
      ]);
      const hits = await store.memories.searchVector(
        TENANT,
        Float32Array.from([0.5, 0, 0, 0]),
        MODEL,
        CURRENT,
        10,
      );
      expect(idsOf(hits)).toEqual(['same', 'near', 'orthogonal', 'zero', 'opposite']);
      const expected = [0, 1 - Math.SQRT1_2, 1, 1, 2];
      for (const [index, hit] of hits.entries())
        expect(hit.distance).toBeCloseTo(expected[index] ?? Number.NaN, 5);
    } finally {
      await store.close();
    }
  });

  it('stays silent when pgvector answers', async () => {
    const warnings: string[] = [];
    const store = await createPostgresStore({
      connectionString: url,
      schema,
      warn: (message) => warnings.push(message),
    });
    await store.close();
    expect(store.vectorIndex).toBe('pgvector-hnsw');
    expect(store.memories.capabilities.vectorSearch).toBe('index');
    expect(warnings).toEqual([]);
  });
});

if (database === null) {
  describe.skip('PostgreSQL store without pgvector (PostgreSQL unreachable)', () =>
    it('needs PostgreSQL', () => {}));
}
