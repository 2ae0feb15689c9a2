import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { MemoryFilter } from '../../src/core/schemas/memory-record.js';
import type { NewMemoryRecord } from '../../src/stores/memory-record-store.js';
import { memoryFilterSql, SqlParameters } from '../../src/stores/postgres/memory-filter-sql.js';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { CURRENT, insertAll, newMemory, TENANT } from '../conformance/memory-record-fixtures.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('agent_index');

describe.skipIf(database === null)('PostgreSQL indexes of memories by agent and by user and type', () => {
  const { url, schema } = database ?? { url: '', schema: '' };

  /**
   * Stores `many` then `few` records, analyzes, and resolves the plan of `select` (a statement
   * around the filter's WHERE clause, as a source runs it) and the filter's count.
   */
  async function planFor(
    many: NewMemoryRecord[],
    few: NewMemoryRecord[],
    filter: MemoryFilter,
    select: (where: string) => string,
  ): Promise<{ plan: string; count: number }> {
    const store = await createPostgresStore({ connectionString: url, schema, poolSize: 2 });
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await client.connect();
    try {
      await insertAll(store.memories, many);
      await insertAll(store.memories, few);
      await client.query('ANALYZE memories');
      const parameters = new SqlParameters();
      const where = memoryFilterSql(TENANT, filter, parameters);
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN ${select(where)}`,
        parameters.values,
      );
      return {
        plan: plan.rows.map((row) => row['QUERY PLAN']).join('\n'),
        count: await store.memories.countMemories(TENANT, filter),
      };
    } finally {
      await client.end();
      await store.close();
    }
  }

  it("finds an agent's procedures through memories_by_agent, not by reading the tenant's memories", async () => {
    // A user's many facts (no agent) and one agent's few procedures, as the procedure source sees them.
    const { plan, count } = await planFor(
      Array.from({ length: 3_000 }, (_, index) => newMemory(`fact-${index}`, { text: `fact ${index}` })),
      Array.from({ length: 3 }, (_, index) =>
        newMemory(`procedure-${index}`, { memoryType: 'procedural', agentId: 'agent-1', userId: null }),
      ),
      { ...CURRENT, agentId: { eq: 'agent-1' }, memoryType: { eq: 'procedural' } },
      // The listing's candidate set, as `listMemories` selects it.
      (where) => `SELECT m.pk FROM memories m WHERE ${where} ORDER BY m.created_at DESC, m.id DESC LIMIT 100`,
    );
    expect(plan).toContain('memories_by_agent');
    expect(plan).not.toContain('Seq Scan');
    expect(count).toBe(3);
  });

  it("finds a user's episodes through memories_by_user_type, not by reading all of the user's memories", async () => {
    // Many facts of one user and a few of their episodes, as the episode source sees them.
    const { plan, count } = await planFor(
      Array.from({ length: 3_000 }, (_, index) =>
        newMemory(`user-fact-${index}`, { text: `user fact ${index}`, userId: 'user-9' }),
      ),
      Array.from({ length: 3 }, (_, index) =>
        newMemory(`episode-${index}`, { text: `episode ${index}`, memoryType: 'episodic', userId: 'user-9' }),
      ),
      { ...CURRENT, userId: { eq: 'user-9' }, memoryType: { eq: 'episodic' } },
      // The vector search's bounded candidate count, as `postgres-vector-search.ts` runs it.
      (where) => `SELECT count(*) FROM (SELECT 1 FROM memories m WHERE ${where} LIMIT 5001) AS c`,
    );
    expect(plan).toContain('memories_by_user_type');
    expect(plan).not.toContain('Seq Scan');
    expect(count).toBe(3);
  });
});

if (database === null) {
  describe.skip('PostgreSQL index of memories by agent (PostgreSQL unreachable)', () =>
    it('needs PostgreSQL', () => {}));
}
