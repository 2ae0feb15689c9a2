import { StoreError, ValidationError } from '../../core/errors.js';
import type { EngramStore } from '../engram-store.js';
import type { StoreOptions } from '../session-store.js';
import { applyMigrations } from './migrations.js';
import { openPostgresDatabase, type PostgresConnectionOptions } from './postgres-database.js';
import { createPostgresDocumentStore } from './postgres-document-store.js';
import { createPostgresJobStore } from './postgres-job-store.js';
import {
  createPostgresMemoryRecordStore,
  type PostgresMemoryRecordStore,
} from './postgres-memory-record-store.js';
import { createPostgresSessionStore } from './postgres-session-store.js';

export interface PostgresStoreOptions extends StoreOptions, PostgresConnectionOptions {
  /**
   * Called once at start when pgvector is missing (vector search then scans exactly), and when a
   * background vector index build fails: default `console.warn`. Pass a logger's warn to route it.
   */
  warn?: (message: string) => void;
  /** Use pgvector when the database has it (default); false scans vectors exactly, as without it. */
  vectorExtension?: boolean;
  /**
   * How many new vectors (all tenants) may wait outside the HNSW graph for the background indexer
   * (default 10,000): writes past it insert into the graph themselves. 0 always inserts at once.
   */
  vectorTailLimit?: number;
  /**
   * `ef_construction` of the HNSW indexes this store builds (default 200; 32–1,000): linking
   * costs about in proportion (pgvector's 64 made ingest 1.5–2× faster) and finds more true
   * neighbours; with 64 a search by a vector's own value sometimes missed it
   * (docs/stores/postgres.md).
   * Applies to an index built from then on (drop `memory_embeddings_hnsw_N` to rebuild one).
   */
  hnswEfConstruction?: number;
  /**
   * Rank text in an in-process BM25 index per tenant searched, kept current by the change log
   * (default true; docs/stores/postgres.md, "Text search"); false ranks every search with BM25 in SQL.
   */
  inProcessTextIndex?: boolean;
  /**
   * Search a tenant's vectors exactly in process, from the mirror the text index keeps (default
   * true; needs `inProcessTextIndex`; tenants of up to 40,000,000 vector floats: 262,144 vectors
   * of 100 dimensions); false searches them in PostgreSQL (pgvector's HNSW index, or exactly).
   */
  inProcessVectorIndex?: boolean;
}

/** The store, plus what benchmarks and operators read: database round trips so far. */
export type PostgresStore = EngramStore & {
  readonly memories: PostgresMemoryRecordStore;
  /** Database round trips since the store opened (each query, BEGIN and COMMIT counts one). */
  roundTrips(): number;
  /** Whether pgvector is installed in the database (HNSW vector search) or vectors are scanned exactly. */
  readonly vectorIndex: 'pgvector-hnsw' | 'exact-scan';
};

/**
 * Creates the PostgreSQL driver: sessions, long-term memories, documents and jobs in one database
 * (one schema), reached through a pool of `poolSize` connections. Any number of engram servers may
 * share the database: what is cached in process is validated against the database on use, so any
 * server answers any request from what is committed. Connects and migrates before resolving (under
 * an advisory lock, so servers starting together migrate once); an unreachable server rejects with
 * StoreError.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  if (!options.connectionString) throw new StoreError('The postgres store needs a connectionString');
  // Written into CREATE INDEX and each connection's settings: integers in pgvector's ranges
  // (ef_construction at least 2 × m) or nothing.
  assertIntegerOption('hnswEfConstruction', options.hnswEfConstruction, 32, 1_000);
  assertIntegerOption('hnswEfSearch', options.hnswEfSearch, 1, 1_000);
  const database = await openPostgresDatabase(options);
  const clock = options.clock ?? (() => new Date());
  let memories: PostgresMemoryRecordStore;
  try {
    await applyMigrations(database);
    memories = await createPostgresMemoryRecordStore(database, {
      vectorExtension: options.vectorExtension ?? true,
      warn: options.warn,
      tailLimit: options.vectorTailLimit,
      efConstruction: options.hnswEfConstruction,
      inProcessText: options.inProcessTextIndex,
      inProcessVectors: options.inProcessVectorIndex,
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  if (!memories.vectorIndexed) {
    (options.warn ?? console.warn)(
      'engram: pgvector is not installed in this database (CREATE EXTENSION vector); vector search scans every embedding exactly, which is slow past ~10,000 memories',
    );
  }
  const sessions = createPostgresSessionStore(database, clock);
  return {
    driver: 'postgres',
    capabilities: { durable: true, multiProcess: true },
    ...sessions,
    memories,
    documents: createPostgresDocumentStore(database, clock),
    jobs: createPostgresJobStore(database, clock),
    roundTrips: () => database.roundTrips(),
    vectorIndex: memories.vectorIndexed ? 'pgvector-hnsw' : 'exact-scan',
    // A vector index build in flight finishes first (the pool would wait for its connection
    // anyway); moving the tail into the graph stops at its next chunk (the next server resumes it).
    close: () => memories.stop().then(() => database.close()),
  };
}

function assertIntegerOption(name: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined || (Number.isInteger(value) && value >= min && value <= max)) return;
  const range = `${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`;
  throw new ValidationError(`${name} must be an integer from ${range}`, [
    { path: [name], message: `Expected an integer from ${range}` },
  ]);
}
