import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryFilter } from '../../src/core/schemas/memory-record.js';
import type { Bm25PruningPlan } from '../../src/stores/postgres/bm25-pruning-plan.js';
import { bm25Sql } from '../../src/stores/postgres/bm25-sql.js';
import {
  memoryFilterSql,
  queryWords,
  SqlParameters,
  tsqueryText,
} from '../../src/stores/postgres/memory-filter-sql.js';
import { createPostgresStore, type PostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { CURRENT, day, idsOf, insertAll, newMemory, TENANT } from '../conformance/memory-record-fixtures.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('search_caches');

/**
 * BM25 as the driver ranked before statistics were cached: every statistic recounted in the
 * statement. The oracle that cached searches must match exactly.
 */
const RECOUNTED_BM25 = (where: string, tenant: string, wordsText: string, query: string, limit: string) => `
  WITH terms AS (
    SELECT t.lexeme, ('''' || replace(replace(t.lexeme, '\\', '\\\\'), '''', '''''') || '''')::tsquery AS query
    FROM unnest(tsvector_to_array(to_tsvector('english', ${wordsText}))) AS t(lexeme)
  ),
  corpus AS MATERIALIZED (
    SELECT count(*)::float8 AS n, coalesce(avg(length(c.text_search)), 1)::float8 AS avgdl
    FROM memories c WHERE c.tenant_id = ${tenant} AND c.valid_to IS NULL
  ),
  weights AS MATERIALIZED (
    SELECT terms.lexeme, ln(1 + (greatest(corpus.n - d.df, 0) + 0.5) / (d.df + 0.5)) AS idf
    FROM terms CROSS JOIN corpus CROSS JOIN LATERAL (
      SELECT count(*)::float8 AS df FROM memories c
      WHERE c.tenant_id = ${tenant} AND c.valid_to IS NULL AND c.text_search @@ terms.query
    ) AS d
  )
  SELECT m.id, (
    SELECT coalesce(sum(w.idf * cardinality(u.positions) * 2.2
      / (cardinality(u.positions) + 1.2 * (0.25 + 0.75 * length(m.text_search) / greatest(corpus.avgdl, 1)))), 0)
    FROM unnest(m.text_search) AS u JOIN weights w ON w.lexeme = u.lexeme
  ) AS score
  FROM memories m CROSS JOIN corpus CROSS JOIN to_tsquery('english', ${query}) AS q(query)
  WHERE m.text_search @@ q.query AND ${where}
  ORDER BY score DESC, m.id LIMIT ${limit}`;

const FRUIT = ['apple', 'banana', 'cherry', 'plum', 'pear', 'fig'];
const QUERIES = ['apple', 'apples and bananas', 'cherry pie', 'fig plum pear', 'running apple', 'nothing'];

/** A varied corpus: texts of different lengths and term frequencies, two users, some topics. */
const corpus = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => {
    const words = Array.from(
      { length: 1 + (index % 7) },
      (__, at) => FRUIT[(index * 3 + at * at) % FRUIT.length],
    );
    return newMemory(`${prefix}-${String(index).padStart(3, '0')}`, {
      text: `${words.join(' ')} ${index % 4 === 0 ? 'running pie' : 'basket'} ${prefix}${index}`,
      userId: index % 3 === 0 ? 'user-2' : 'user-1',
      createdAt: day(index % 10),
    });
  });

describe.skipIf(database === null)('PostgreSQL search caches across servers (BM25 in SQL)', () => {
  const { url, schema, truncate } = database ?? { url: '', schema: '', truncate: async () => {} };
  const open = () =>
    createPostgresStore({ connectionString: url, schema, poolSize: 2, inProcessTextIndex: false });
  let oracle: pg.Client;
  const stores: PostgresStore[] = [];
  const server = async () => {
    const store = await open();
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    await (await server()).memories.countMemories(TENANT, CURRENT); // migrated
    oracle = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await oracle.connect();
  });
  afterAll(async () => {
    await oracle?.end();
    await Promise.all(stores.map((store) => store.close()));
  });

  // The oracle ranks only: the hits' traits are compared by the conformance suite.
  const withoutTraits = (hits: { id: string; score: number }[]) =>
    hits.map(({ id, score }) => ({ id, score }));
  const recounted = async (query: string, filter: MemoryFilter, limit: number) => {
    const terms = queryWords(query);
    const text = tsqueryText(terms);
    if (text === null) return [];
    const parameters = new SqlParameters();
    const tsquery = parameters.add(text);
    const wordsText = parameters.add(terms.join(' '));
    const where = memoryFilterSql(TENANT, filter, parameters);
    const sql = RECOUNTED_BM25(where, parameters.add(TENANT), wordsText, tsquery, parameters.add(limit));
    return (await oracle.query<{ id: string; score: number }>(sql, parameters.values)).rows;
  };

  it('sees on one server the next count and text ranking after a write on another', async () => {
    await truncate();
    const a = await server();
    const b = await server();
    await insertAll(a.memories, [
      newMemory('short', { text: 'apple' }),
      newMemory('long', { text: 'apple banana cherry plum and a long tail of words' }),
      newMemory('other', { text: 'banana bread' }),
    ]);
    const mine = { ...CURRENT, userId: { eq: 'user-1' } };
    expect(await b.memories.countMemories(TENANT, mine)).toBe(3);
    const before = withoutTraits(await b.memories.searchText(TENANT, 'apple', CURRENT, 10));
    expect(withoutTraits(await b.memories.searchText(TENANT, 'apple', CURRENT, 10))).toEqual(before);

    // More memories with "apple" (its document frequency) and of other lengths (the average).
    await insertAll(a.memories, [
      newMemory('new-1', { text: 'apple apple apple' }),
      newMemory('new-2', { text: 'apple orchard in the autumn rain with ladders' }),
    ]);
    expect(await b.memories.countMemories(TENANT, mine)).toBe(5);
    const after = withoutTraits(await b.memories.searchText(TENANT, 'apple', CURRENT, 10));
    expect(after).toEqual(await recounted('apple', CURRENT, 10));
    expect(idsOf(after).sort()).toEqual(['long', 'new-1', 'new-2', 'short']);
    const score = (hits: typeof before, id: string) => hits.find((hit) => hit.id === id)?.score;
    expect(score(after, 'short')).not.toBe(score(before, 'short'));

    // Deletes and new versions on A move B's answers too.
    await a.memories.deleteMemories(TENANT, ['new-1']);
    await a.memories.supersede(TENANT, 'short', newMemory('short-2', { text: 'pear' }));
    expect(await b.memories.countMemories(TENANT, mine)).toBe(4);
    expect(withoutTraits(await b.memories.searchText(TENANT, 'apple', CURRENT, 10))).toEqual(
      await recounted('apple', CURRENT, 10),
    );
  });

  it('ranks from cached statistics exactly as a search that recounts them', async () => {
    await truncate();
    const writer = await server();
    await insertAll(writer.memories, corpus('m', 240));
    const reader = await server();
    const filters: MemoryFilter[] = [
      CURRENT,
      { ...CURRENT, userId: { eq: 'user-2' } },
      { ...CURRENT, createdAt: { gte: day(3) } },
    ];
    for (let round = 0; round < 2; round += 1) {
      // Round 0 learns the statistics; round 1 reads them all from the cache.
      for (const query of QUERIES) {
        for (const filter of filters) {
          const hits = withoutTraits(await reader.memories.searchText(TENANT, query, filter, 25));
          expect(hits, `${query} (round ${round})`).toEqual(await recounted(query, filter, 25));
        }
      }
      await insertAll(writer.memories, corpus(`r${round}`, 30)); // statistics move between rounds
    }
  });

  it('prunes BM25 where a few rare words decide the top, and answers exactly as a full scoring', async () => {
    await truncate();
    const store = await server();
    // 3,000 records: two common words, two rare ones in short records, one rare one in long records.
    const records = Array.from({ length: 3_000 }, (_, index) => {
      const words = ['common', `w${index}`, ...Array.from({ length: index % 9 }, (__, at) => `filler${at}`)];
      if (index % 2 === 0) words.push('basket');
      if (index % 3 === 0) words.push('orchard');
      if (index % 40 === 0) words.push('zebra');
      if (index % 50 === 1) words.push('walnut', 'walnut');
      if (index % 75 === 2) words.push('yak', ...Array.from({ length: 40 }, (__, at) => `long${at}`));
      return newMemory(`p-${String(index).padStart(4, '0')}`, { text: words.join(' ') });
    });
    for (let start = 0; start < records.length; start += 500) {
      await insertAll(store.memories, records.slice(start, start + 500));
    }
    const pruned = async (query: string) => {
      const before = store.memories.prunedTextSearches();
      const hits = withoutTraits(await store.memories.searchText(TENANT, query, CURRENT, 25));
      expect(hits, query).toEqual(await recounted(query, CURRENT, 25));
      return store.memories.prunedTextSearches() > before;
    };
    // The first search learns the statistics (nothing to plan with yet): every match is scored.
    expect(await pruned('zebra walnut basket orchard yak common')).toBe(false);
    expect(await pruned('zebra common')).toBe(true);
    expect(await pruned('zebra walnut basket orchard')).toBe(true);
    expect(await pruned('yak basket orchard')).toBe(false);
    expect(await pruned('common basket')).toBe(true); // "common" alone scores next to nothing
    expect(await pruned('zebra walnut')).toBe(false); // too few records to skip
    // Three common words (the first search learns "filler0"): the candidates hold two of them.
    await pruned('basket orchard filler0');
    expect(await pruned('basket orchard filler0')).toBe(true);
    // After a write the statistics are recounted in the statement; the answer stays exact.
    await insertAll(store.memories, [newMemory('p-new', { text: 'zebra zebra common' })]);
    await pruned('zebra common');
    expect(await pruned('zebra common')).toBe(true);

    // Plans checked in the statement: each way a plan can be wrong scores every match instead.
    const direct = async (
      query: string,
      plan: Omit<Bm25PruningPlan, 'query'>,
      candidates: string,
      stale = false,
    ) => {
      const terms = queryWords(query);
      // The revision and corpus statistics as a cache would pass them (the frequencies are counted).
      const [corpus] = (
        await oracle.query(
          `SELECT (SELECT revision FROM memory_revisions WHERE tenant_id = $1) AS revision,
            count(*)::float8 AS n, avg(length(text_search))::float8 AS avgdl
          FROM memories WHERE tenant_id = $1 AND valid_to IS NULL`,
          [TENANT],
        )
      ).rows;
      const parameters = new SqlParameters();
      const sql = bm25Sql(memoryFilterSql(TENANT, CURRENT, parameters), {
        query: parameters.add(tsqueryText(terms)),
        wordsText: parameters.add(terms.join(' ')),
        tenant: parameters.add(TENANT),
        limit: parameters.add(25),
        revision: parameters.add(stale ? null : corpus?.revision, '::bigint'),
        n: parameters.add(corpus?.n, '::float8'),
        avgdl: parameters.add(corpus?.avgdl, '::float8'),
        lexemes: parameters.add([], '::text[]'),
        dfs: parameters.add([], '::float8[]'),
        impacts: parameters.add([], '::float8[]'),
        unstemmed: parameters.add([], '::text[]'),
        pruning: {
          lexemes: parameters.add(plan.lexemes, '::text[]'),
          bounds: parameters.add(plan.bounds, '::float8[]'),
          threshold: parameters.add(plan.threshold, '::float8'),
          query: parameters.add(candidates),
        },
      });
      const rows = (
        await oracle.query<{ id: string; score: number; pruned: boolean }>(sql, parameters.values)
      ).rows;
      expect(
        rows.map(({ id, score }) => ({ id, score })),
        query,
      ).toEqual(await recounted(query, CURRENT, 25));
      return rows[0]?.pruned;
    };
    // Sound: "common" adds at most 1, below the threshold, so only records with "zebra" can make it.
    const sound = { lexemes: ['zebra', 'common'], bounds: [100, 1], threshold: 1.5 };
    expect(await direct('zebra common', sound, "'zebra'")).toBe(true);
    // A bound below the real one (statistics gone stale): "common" really adds more than 0.0001.
    expect(await direct('zebra common', { ...sound, bounds: [100, 0.0001] }, "'zebra'")).toBe(false);
    // The candidates' last score is below the threshold: "yak" records are long and score low.
    const yak = { lexemes: ['yak', 'basket', 'orchard'], bounds: [100, 100, 100], threshold: 50 };
    expect(await direct('yak basket orchard', yak, "'yak'")).toBe(false);
    // Fewer candidates than the limit.
    expect(
      await direct('w7 common', { lexemes: ['w7', 'common'], bounds: [100, 1], threshold: 1.5 }, "'w7'"),
    ).toBe(false);
    // A query lexeme the plan has no bound for.
    expect(await direct('zebra walnut common', sound, "'zebra'")).toBe(false);
    // A plan made from statistics of another revision is not used.
    expect(await direct('zebra common', sound, "'zebra'", true)).toBe(false);
  });

  it('answers from its caches while the revision stands, and counts by access time afresh', async () => {
    await truncate();
    const store = await server();
    await insertAll(store.memories, [
      newMemory('one', { text: 'apple tart' }),
      newMemory('two', { text: 'apple', lastAccessed: day(5) }),
      newMemory('three', { text: 'banana' }),
    ]);
    const mine = { ...CURRENT, userId: { eq: 'user-1' } };
    const recent = { ...CURRENT, lastAccessed: { gte: day(1) } };
    expect(await store.memories.countMemories(TENANT, mine)).toBe(3);
    expect(await store.memories.countMemories(TENANT, recent)).toBe(1);
    const before = withoutTraits(await store.memories.searchText(TENANT, 'apple', CURRENT, 10));

    // Rows changed behind the driver's back, without moving the revision (the change-log triggers,
    // which move it for any writer, switched off for this transaction): the cached answers stand,
    // which shows that they come from the caches rather than from a recount.
    const table = `"${schema}".memories`;
    await database?.admin(
      `BEGIN; SET LOCAL session_replication_role = replica;
      UPDATE ${table} SET user_id = 'user-9', text = 'apple pie' WHERE id = 'three'; COMMIT`,
    );
    expect(await store.memories.countMemories(TENANT, mine)).toBe(3);
    const stale = withoutTraits(await store.memories.searchText(TENANT, 'apple', CURRENT, 10));
    expect(stale.filter((hit) => hit.id !== 'three')).toEqual(before);
    expect((await recounted('apple', CURRENT, 10)).filter((hit) => hit.id !== 'three')).not.toEqual(before);

    // Once the revision moves (as every write through a driver does), both recount.
    await database?.admin(
      `UPDATE "${schema}".memory_revisions SET revision = nextval('"${schema}".memory_revision_seq')`,
    );
    expect(await store.memories.countMemories(TENANT, mine)).toBe(2);
    expect(withoutTraits(await store.memories.searchText(TENANT, 'apple', CURRENT, 10))).toEqual(
      await recounted('apple', CURRENT, 10),
    );

    // Reading records moves access times but not the revision: counts by access time are never cached.
    await store.memories.recordAccess(TENANT, ['one'], day(6));
    expect(await store.memories.countMemories(TENANT, recent)).toBe(2);
  });
});

if (database === null) {
  describe.skip('PostgreSQL search caches (PostgreSQL unreachable)', () => it('needs PostgreSQL', () => {}));
}
