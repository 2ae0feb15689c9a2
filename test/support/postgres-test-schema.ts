import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';

/** Where tests find PostgreSQL: `ENGRAM_TEST_POSTGRES_URL`, else the CI and development default. */
export const POSTGRES_TEST_URL =
  process.env.ENGRAM_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** What a test file gets: its own schema on the test database. */
export interface PostgresTestSchema {
  url: string;
  schema: string;
  /** Empties the driver's tables (they keep their schema and migrations). */
  truncate(): Promise<void>;
  /** Runs SQL as an administrator of the test database (pg_terminate_backend and the like). */
  admin<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    parameters?: unknown[],
  ): Promise<Row[]>;
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A schema of its own for one test file, so that files run in parallel on one database; dropped
 * after the file's last test. Resolves null (after saying why) when PostgreSQL is unreachable: the
 * caller skips its tests. Call at module level with top-level await.
 */
export async function usePostgresTestSchema(name: string): Promise<PostgresTestSchema | null> {
  if (!(await reachable(POSTGRES_TEST_URL))) {
    console.warn(
      `Skipping ${name}: PostgreSQL is unreachable at ${POSTGRES_TEST_URL} (set ENGRAM_TEST_POSTGRES_URL; CI runs these)`,
    );
    return null;
  }
  const schema = `engram_test_${name.replace(/\W+/g, '_')}_${randomBytes(4).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: POSTGRES_TEST_URL, max: 2 });
  pool.on('error', () => {});
  const admin = async <Row extends pg.QueryResultRow>(sql: string, parameters?: unknown[]) =>
    (await pool.query<Row>(sql, parameters)).rows;
  afterAll(async () => {
    await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  return {
    url: POSTGRES_TEST_URL,
    schema,
    admin,
    async truncate() {
      const [exists] = await admin('SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2', [
        schema,
        'memories',
      ]);
      if (!exists) return;
      const table = (name: string) => `"${schema}".${name}`;
      // DELETE costs ~1 ms on small tables where TRUNCATE costs ~30 ms a table (new files, fsync);
      // memories are truncated when any are left, so that their HNSW index starts empty.
      const [memories] = await admin(`SELECT 1 FROM ${table('memories')} LIMIT 1`);
      if (memories)
        await admin(
          `TRUNCATE ${table('memories')}, ${table('memory_embeddings')}, ${table('memory_versions')}, ${table('memory_changes')}`,
        );
      // A fresh database has no vector index yet: the driver builds it past 5,000 vectors.
      const indexes = await admin<{ name: string }>(
        `SELECT quote_ident(indexname) AS name FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'memory_embeddings_hnsw_%'`,
        [schema],
      );
      for (const index of indexes) await admin(`DROP INDEX ${table(index.name)}`);
      for (const name of [
        'sessions',
        'documents',
        'jobs',
        'job_turns',
        'memory_revisions',
        'memory_vector_spaces',
      ]) {
        await admin(`DELETE FROM ${table(name)}`);
      }
    },
  };
}
