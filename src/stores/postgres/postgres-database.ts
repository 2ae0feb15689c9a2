import type { Pool, PoolClient } from 'pg';
import { EngramError, StoreError, ValidationError } from '../../core/errors.js';

/** How the driver reaches PostgreSQL: the pool's settings (see `createPostgresStore`). */
export interface PostgresConnectionOptions {
  connectionString: string;
  /** Tables live in this schema (created if absent); default `public`. */
  schema?: string;
  /** Connections per process; default 10. */
  poolSize?: number;
  /** How long a query waits for a free connection (pool exhausted) or a new one, in ms; default 5,000. */
  acquireTimeoutMs?: number;
  /** PostgreSQL's `statement_timeout` on every connection, in ms; default 10,000. */
  statementTimeoutMs?: number;
  /**
   * pgvector's `hnsw.ef_search` on every connection: candidates an HNSW search keeps per step
   * (default 300; 1–1,000). Higher finds more true neighbours and costs about in proportion.
   */
  hnswEfSearch?: number;
}

/**
 * Default `hnsw.ef_search`: 1.5 times the pool most searches ask for (`MIN_SEARCH_POOL`, 200): on
 * uniformly random vectors a graph built with `ef_construction` 64 and searched with 300 had
 * recall@10 0.919, against 0.889 for 200 / 200, in about the same time (docs/stores/postgres.md,
 * BENCHMARKS.md). Larger pools (deep pages, distance thresholds) go on by the iterative scan.
 */
export const DEFAULT_EF_SEARCH = 300;

/** A result row: column names to values (node-postgres's `QueryResultRow`, without needing its types). */
// biome-ignore lint/suspicious/noExplicitAny: rows are typed by each query's caller
export type QueryRow = { [column: string]: any };

/** Something that runs SQL: the pool, or one connection inside a transaction. */
export interface Queryable {
  query<Row extends QueryRow = QueryRow>(sql: string, parameters?: unknown[]): Promise<Row[]>;
}

/**
 * The pool behind one store: every query counted (round trips, for benchmarks), every failure of
 * the backend turned into StoreError (`store_unavailable`, HTTP 503) and contract errors passed on.
 */
export interface PostgresDatabase extends Queryable {
  readonly schema: string;
  /** Runs `work` in one transaction on one connection; rolls back when it throws. */
  transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T>;
  /** Database round trips since the store opened (BEGIN and COMMIT count). */
  roundTrips(): number;
  close(): Promise<void>;
}

/** The SQLSTATE of a PostgreSQL error (`23505` unique violation, ...), if `error` is one. */
export function sqlState(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Contract errors pass through; everything else (connection lost, timeouts, SQL errors) is StoreError. */
export function toStoreFailure(error: unknown): unknown {
  if (error instanceof EngramError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const state = sqlState(error);
  // PostgreSQL text and jsonb cannot hold U+0000: the input is refused for good, not an outage
  // a client should retry (SQLite stores it).
  if (state === '22021' || state === '22P05') {
    return new ValidationError(
      'Text contains U+0000 (NUL), which the PostgreSQL store cannot hold: remove it (SQLite stores it)',
      [{ path: [], message: 'U+0000 (NUL) in a string' }],
    );
  }
  if (state === '57014') {
    return new StoreError(`PostgreSQL cancelled a query at statement_timeout: ${message}`, error);
  }
  if (/timeout exceeded when trying to connect/i.test(message)) {
    return new StoreError(
      `No PostgreSQL connection became free within acquireTimeoutMs (pool exhausted or server unreachable)`,
      error,
    );
  }
  return new StoreError(`PostgreSQL failed${state ? ` (${state})` : ''}: ${message}`, error);
}

async function loadLibrary(): Promise<typeof import('pg')> {
  try {
    // Loaded lazily: only users of this driver need the pg package.
    const module = await import('pg');
    return (module.default ?? module) as typeof import('pg');
  } catch (error) {
    throw new StoreError('The postgres store needs the pg package (npm install pg)', error);
  }
}

/** A schema name quoted as an SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** bigint (int8) and numeric come back as JavaScript numbers: timestamps, counters and pks fit. */
function typeParsers(library: typeof import('pg')) {
  const parseNumber = (value: string) => Number(value);
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === 20 || oid === 1700) return parseNumber;
      return library.types.getTypeParser(oid, format as 'text');
    }) as typeof library.types.getTypeParser,
  };
}

/** Opens the pool (no connection is made until the first query). */
export async function openPostgresDatabase(options: PostgresConnectionOptions): Promise<PostgresDatabase> {
  const library = await loadLibrary();
  const schema = options.schema ?? 'public';
  const statementTimeout = options.statementTimeoutMs ?? 10_000;
  // `public` stays on the path so that an extension installed there (pgvector) is found.
  const searchPath = schema === 'public' ? 'public' : `${quoteIdentifier(schema)},public`;
  const pool: Pool = new library.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.acquireTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementTimeout,
    // Also a client-side limit, so that a query on a connection whose server vanished cannot hang.
    query_timeout: statementTimeout + 2_000,
    // pgvector: iterative index scans in exact distance order, so that filters never cut a result
    // short; `hnswEfSearch` candidates per step (pgvector's default 40 is below the pool of 200 that
    // hybrid search asks for at least).
    options: `-c search_path=${searchPath.replaceAll(' ', '\\ ')} -c hnsw.iterative_scan=strict_order -c hnsw.ef_search=${options.hnswEfSearch ?? DEFAULT_EF_SEARCH}`,
    types: typeParsers(library),
  });
  // An idle connection that the server drops (restart, pg_terminate_backend) must not crash the process.
  pool.on('error', () => {});
  let trips = 0;
  let closed = false;

  const run = async <Row extends QueryRow>(
    client: Pool | PoolClient,
    sql: string,
    parameters?: unknown[],
  ): Promise<Row[]> => {
    if (closed) throw new StoreError('The postgres store is closed');
    trips += 1;
    try {
      return (await client.query<Row>(sql, parameters)).rows;
    } catch (error) {
      throw toStoreFailure(error);
    }
  };

  return {
    schema,
    query: (sql, parameters) => run(pool, sql, parameters),
    async transaction(work) {
      if (closed) throw new StoreError('The postgres store is closed');
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw toStoreFailure(error);
      }
      let broken = false;
      // A checked-out client has no pool listener: a connection that drops between statements
      // (PostgreSQL restarting, pg_terminate_backend) emits 'error' on it, which would crash the process.
      const dropped = () => {
        broken = true;
      };
      client.on('error', dropped);
      try {
        await run(client, 'BEGIN');
        const result = await work({ query: (sql, parameters) => run(client, sql, parameters) });
        await run(client, 'COMMIT');
        return result;
      } catch (error) {
        try {
          await run(client, 'ROLLBACK');
        } catch {
          broken = true; // the connection is gone: do not give it back to the pool
        }
        throw error;
      } finally {
        client.off('error', dropped);
        client.release(broken);
      }
    },
    roundTrips: () => trips,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
