import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { unitVector } from '../src/core/vectors/dot-product.js';
import { seededRandom } from '../src/core/vectors/seeded-random.js';
import type { Engram } from '../src/engram.js';
import type { EngramStore } from '../src/stores/engram-store.js';
import { createMemoryStore } from '../src/stores/memory/memory-store.js';
import { createPostgresStore, type PostgresStore } from '../src/stores/postgres/postgres-store.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';

/**
 * A source of clustered vectors, as embeddings are: `clusters` random unit centres, each vector one
 * of them plus Gaussian noise of 0.7 / √dimensions per component (deterministic per `seed`).
 */
export function clusteredVectors(seed: number, clusters: number, dimensions: number): () => Float32Array {
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const centres = Array.from({ length: clusters }, () =>
    unitVector(Float32Array.from({ length: dimensions }, gaussian)),
  );
  return () => {
    const centre = centres[Math.floor(random() * centres.length)] as Float32Array;
    return centre.map((value) => value + (gaussian() * 0.7) / Math.sqrt(dimensions));
  };
}

/** The p-th percentile (0-100) of a list of numbers, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Prints a Markdown table. */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  const cells = rows.map((row) => row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell)));
  console.log(`| ${headers.join(' | ')} |`);
  console.log(`|${headers.map(() => '---').join('|')}|`);
  for (const row of cells) console.log(`| ${row.join(' | ')} |`);
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return value < 10 ? value.toFixed(3) : value.toFixed(1);
}

/** Where benchmarks find PostgreSQL: `ENGRAM_BENCH_POSTGRES_URL`, else the development default. */
export const benchPostgresUrl =
  process.env.ENGRAM_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * `VACUUM (ANALYZE)` of every table of `schema`, as autovacuum would have done by now after a
 * bulk load: the development and CI PostgreSQL run with `autovacuum = off`, which leaves a GIN
 * index's pending list unmerged (text search then scans it, and the planner prices the index out
 * for a sequential scan: 11 ms against 1.7 ms for one query at 10,000 memories), the tail's moved
 * rows as dead tuples, and the statistics of a fresh load unset. Benchmarks measure a database as
 * one runs in production (autovacuum is on by default and on every managed offering).
 */
export async function vacuumPostgresSchema(
  schema: string,
  connectionString = benchPostgresUrl,
): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      'SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = $1',
      [schema],
    );
    for (const { name } of tables.rows) await client.query(`VACUUM (ANALYZE) "${schema}".${name}`);
  } finally {
    await client.end();
  }
}

/**
 * A PostgreSQL store in a fresh schema of `benchPostgresUrl`, dropped when the store closes.
 * `schema` names an existing one instead (kept), to open a second server's store on the same data.
 */
export async function openPostgresStore(schema?: string): Promise<PostgresStore> {
  const name = schema ?? `engram_bench_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const store = await createPostgresStore({ connectionString: benchPostgresUrl, schema: name });
  if (schema !== undefined) return store;
  let dropped = false;
  return {
    ...store,
    close: async () => {
      if (dropped) return;
      dropped = true;
      await store.close();
      const client = new pg.Client({ connectionString: benchPostgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA "${name}" CASCADE`);
      await client.end();
    },
  };
}

/** The store drivers `openStore` opens, for `--stores` / `--store` flags. */
export const storeDrivers = ['memory', 'sqlite', 'postgres'] as const;

/** Opens a fresh store of the named driver (SQLite in a temporary file, as in embedded mode). */
export async function openStore(driver: string): Promise<EngramStore> {
  if (driver === 'memory') return createMemoryStore();
  if (driver === 'sqlite') {
    return createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'engram-bench-')), 'engram.db') });
  }
  if (driver === 'postgres') return openPostgresStore();
  throw new Error(`Unknown store "${driver}" (${storeDrivers.join(', ')})`);
}

/** Fills a session with `count` alternating user/assistant messages, in batches. */
export async function seedSession(engram: Engram, sessionId: string, count: number): Promise<void> {
  const batchSize = 1_000;
  for (let start = 0; start < count; start += batchSize) {
    const size = Math.min(batchSize, count - start);
    const batch = Array.from({ length: size }, (_, offset) => {
      const index = start + offset;
      return {
        role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `Message ${index}: the user talked about travel plans, budgets and the weather in Lisbon.`,
      };
    });
    await engram.sessions.append({ sessionId }, batch);
  }
}

/** Times `iterations` calls of `task` after `warmup` untimed calls; milliseconds per call. */
export async function time(
  task: () => Promise<unknown>,
  iterations: number,
  warmup: number,
): Promise<number[]> {
  for (let index = 0; index < warmup; index++) await task();
  const samples: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const started = performance.now();
    await task();
    samples.push(performance.now() - started);
  }
  return samples;
}

export function machine(): string {
  return `${process.platform} ${process.arch}, node ${process.version}`;
}
