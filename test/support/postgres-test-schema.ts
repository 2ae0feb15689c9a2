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
  /** Empties every table of the schema (it keeps its tables and migrations). */
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
      const tables = await admin<{ name: string }>(
        `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> 'engram_migrations'`,
        [schema],
      );
      if (tables.length === 0) return;
      const names = tables.map((table) => `"${schema}".${table.name}`).join(', ');
      await admin(`TRUNCATE ${names} RESTART IDENTITY CASCADE`);
    },
  };
}
