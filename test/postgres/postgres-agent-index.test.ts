import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { memoryFilterSql, SqlParameters } from '../../src/stores/postgres/memory-filter-sql.js';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { CURRENT, insertAll, newMemory, TENANT } from '../conformance/memory-record-fixtures.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('agent_index');

describe.skipIf(database === null)('PostgreSQL indexes of memories by agent and by user and type', () => {
  const { url, schema } = database ?? { url: '', schema: '' };

  it("finds an agent's procedures through memories_by_agent, not by reading the tenant's memories", async () => {
    const store = await createPostgresStore({ connectionString: url, schema, poolSize: 2 });
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await client.connect();
    try {
      // A user's many facts (no agent) and one agent's few procedures, as the procedure source sees them.
      await insertAll(
        store.memories,
        Array.from({ length: 3_000 }, (_, index) => newMemory(`fact-${index}`, { text: `fact ${index}` })),
      );
      await insertAll(
        store.memories,
        Array.from({ length: 3 }, (_, index) =>
          newMemory(`procedure-${index}`, { memoryType: 'procedural', agentId: 'agent-1', userId: null }),
        ),
      );
      await client.query('ANALYZE memories');
      const filter = { ...CURRENT, agentId: { eq: 'agent-1' }, memoryType: { eq: 'procedural' as const } };
      const parameters = new SqlParameters();
      const where = memoryFilterSql(TENANT, filter, parameters);
      // The listing's candidate set, as `listMemories` selects it.
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT m.pk FROM memories m WHERE ${where} ORDER BY m.created_at DESC, m.id DESC LIMIT 100`,
        parameters.values,
      );
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toContain('memories_by_agent');
      expect(text).not.toContain('Seq Scan');
      expect(await store.memories.countMemories(TENANT, filter)).toBe(3);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it("finds a user's episodes through memories_by_user_type, not by reading all of the user's memories", async () => {
    const store = await createPostgresStore({ connectionString: url, schema, poolSize: 2 });
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await client.connect();
    try {
      // Many facts of one user and a few of their episodes, as the episode source sees them.
      await insertAll(
        store.memories,
        Array.from({ length: 3_000 }, (_, index) =>
          newMemory(`user-fact-${index}`, { text: `user fact ${index}`, userId: 'user-9' }),
        ),
      );
      await insertAll(
        store.memories,
        Array.from({ length: 3 }, (_, index) =>
          newMemory(`episode-${index}`, {
            text: `episode ${index}`,
            memoryType: 'episodic',
            userId: 'user-9',
          }),
        ),
      );
      await client.query('ANALYZE memories');
      const filter = { ...CURRENT, userId: { eq: 'user-9' }, memoryType: { eq: 'episodic' as const } };
      const parameters = new SqlParameters();
      const where = memoryFilterSql(TENANT, filter, parameters);
      // The vector search's bounded candidate count, as `postgres-vector-search.ts` runs it.
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT count(*) FROM (SELECT 1 FROM memories m WHERE ${where} LIMIT 5001) AS c`,
        parameters.values,
      );
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toContain('memories_by_user_type');
      expect(text).not.toContain('Seq Scan');
      expect(await store.memories.countMemories(TENANT, filter)).toBe(3);
    } finally {
      await client.end();
      await store.close();
    }
  });
});

if (database === null) {
  describe.skip('PostgreSQL index of memories by agent (PostgreSQL unreachable)', () =>
    it('needs PostgreSQL', () => {}));
}
