import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sessionKey, sessionWrite } from '../../../test/conformance/fixtures.js';
import { CURRENT, MODEL, newMemory, TENANT } from '../../../test/conformance/memory-record-fixtures.js';
import { memoryFilterSql } from './memory-filter-sql.js';
import { searchTextSql, searchVectorSql } from './memory-record-statements.js';
import { createSqliteStore } from './sqlite-store.js';

const directory = mkdtempSync(join(tmpdir(), 'engram-sqlite-memories-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let files = 0;
const freshPath = (): string => {
  files += 1;
  return join(directory, `case-${files}.db`);
};

const records = () => [
  newMemory('a', { text: 'Ana likes green tea in the morning', vector: [1, 0, 0, 0] }),
  newMemory('b', { text: 'Bo drinks black coffee', vector: [0.6, 0.8, 0, 0] }),
  newMemory('c', { text: 'Tea ceremonies take an hour', vector: [0, 0, 1, 1] }),
];

describe('sqlite memory record store', () => {
  it('keeps memories with the sessions in one file, across reopen and between connections', async () => {
    const path = freshPath();
    const first = await createSqliteStore({ path });
    await first.putSession(sessionKey(), sessionWrite());
    await first.memories.insertMemories(TENANT, records());
    const second = await createSqliteStore({ path });
    expect(
      (await second.memories.searchText(TENANT, 'tea', CURRENT, 10)).map((hit) => hit.id).sort(),
    ).toEqual(['a', 'c']);
    await second.memories.deleteMemories(TENANT, ['c']);
    expect((await first.memories.searchText(TENANT, 'tea', CURRENT, 10)).map((hit) => hit.id)).toEqual(['a']);
    await Promise.all([first.close(), second.close()]);

    const reopened = await createSqliteStore({ path });
    expect(await reopened.getSession(sessionKey())).not.toBeNull();
    const nearest = await reopened.memories.searchVector(
      TENANT,
      Float32Array.of(1, 0, 0, 0),
      MODEL,
      CURRENT,
      1,
    );
    expect(nearest.map((hit) => hit.id)).toEqual(['a']);
    await reopened.close();
  });

  it('keeps the FTS5 index in step with the rows through every write', async () => {
    const path = freshPath();
    const store = await createSqliteStore({ path });
    await store.memories.insertMemories(TENANT, records());
    await store.memories.supersede(TENANT, 'a', newMemory('a2', { text: 'Ana switched to coffee' }));
    await store.memories.recordAccess(TENANT, ['b'], '2026-02-01T00:00:00.000Z');
    await store.memories.deleteMemories(TENANT, ['b']);
    await store.close();
    const database = new Database(path);
    try {
      // Raises SQLITE_CORRUPT_VTAB when the index and the content table disagree.
      database.exec("INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)");
      expect(database.prepare('SELECT count(*) AS n FROM memory_embeddings').get()).toEqual({ n: 2 });
    } finally {
      database.close();
    }
  });

  it('computes the same distances with sqlite-vec and with the JavaScript fallback', async () => {
    const native = await createSqliteStore({ path: ':memory:' });
    const fallback = await createSqliteStore({ path: ':memory:', vectorExtension: false });
    expect(native.memories.capabilities).toEqual({
      vectorSearch: 'index',
      vectorDistance: 'sqlite-vec',
    });
    expect(fallback.memories.capabilities).toEqual({
      vectorSearch: 'index',
      vectorDistance: 'javascript',
    });
    const query = Float32Array.of(0.3, -0.2, 0.9, 0.1);
    const results = [];
    for (const store of [native, fallback]) {
      await store.memories.insertMemories(TENANT, records());
      results.push(await store.memories.searchVector(TENANT, query, MODEL, CURRENT, 10));
      await store.close();
    }
    const [fromNative, fromFallback] = results;
    expect(fromNative?.map((hit) => hit.id)).toEqual(fromFallback?.map((hit) => hit.id));
    for (const [index, hit] of (fromNative ?? []).entries()) {
      expect(hit.distance).toBeCloseTo(fromFallback?.[index]?.distance ?? Number.NaN, 6);
    }
  });

  it('answers a user-scoped search from the covering index on (tenant, user, validTo)', async () => {
    const path = freshPath();
    await (await createSqliteStore({ path })).close();
    const database = new Database(path);
    try {
      const where = memoryFilterSql(TENANT, { includeSuperseded: false, userId: { eq: 'user-1' } });
      const plan = (sql: string, extra: Record<string, unknown>) =>
        database
          .prepare(`EXPLAIN QUERY PLAN ${sql.replace(/vec_distance_cosine/g, 'max')}`)
          .all({ ...where.parameters, ...extra })
          .map((row) => (row as { detail: string }).detail)
          .join('\n');
      const vector = plan(searchVectorSql(where, 'vec_distance_cosine'), {
        query: null,
        model: MODEL,
        limit: 10,
      });
      expect(vector).toContain('COVERING INDEX memories_by_user');
      const text = plan(searchTextSql(where), { fts_query: '"tea"', limit: 10 });
      expect(text).toContain('memories_fts VIRTUAL TABLE');
    } finally {
      database.close();
    }
  });
});
