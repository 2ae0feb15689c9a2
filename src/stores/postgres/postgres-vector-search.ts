import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { assertDimensions, assertUsableVector, vectorNorm } from '../memory-rules.js';
import { createExactScanCache } from './exact-scan-cache.js';
import { installPgvector } from './install-pgvector.js';
import { memoryFilterSql, SqlParameters } from './memory-filter-sql.js';
import type { PostgresDatabase, Queryable } from './postgres-database.js';
import { createVectorCandidateCounts } from './postgres-memory-counts.js';

/** An embedding to store: `memoryPk` null when its record is gone (the vector is still checked). */
export interface PendingEmbedding {
  memoryPk: number | null;
  model: string;
  vector: Float32Array;
  path: (string | number)[];
}

/** The contract's rule (`searchVector`): at most this many filtered candidates are searched exactly. */
export const EXACT_SEARCH_LIMIT = 5_000;

/**
 * At most this many vectors (of all tenants) wait outside the HNSW graphs: each vector search reads
 * the tail of its tenant exactly, so the tail bounds that work while a bulk load runs ahead of the
 * indexer; past it a write inserts into the graph itself, as if there were no tail.
 */
export const TAIL_LIMIT = 10_000;

/**
 * `ef_construction` of a new HNSW index: candidates kept while linking a vector into the graph.
 * Linking costs about in proportion to it and bounds ingest (100,000 memories: 609–729/s
 * acknowledged on a slow day, 1,079–1,141/s with pgvector's 64, BENCHMARKS.md), but a graph built
 * with 64 sometimes leaves a vector linked so poorly that a search with that very vector misses
 * it: the conformance suite's search of superseded records by their new vectors failed 1 run in 12
 * with 64 (and `ef_search` 300), none in 14 with 200, which it was before 2026-11-28 and is again.
 * `hnswEfConstruction` sets it.
 */
export const DEFAULT_EF_CONSTRUCTION = 200;

/** A vector search row: the hit, its distance and its traits (see `HitTraits`). */
interface VectorRow {
  id: string;
  distance: number;
  session_id: string | null;
  entities: string[];
}

/** Vectors moved into a graph per transaction, and connections moving them at once. */
const INDEX_CHUNK = 100;
const INDEX_WORKERS = 2;

/** How long a dimension count whose index build failed waits before a write tries again. */
const BUILD_RETRY_MS = 10 * 60_000;

/** pgvector indexes vectors of at most this many dimensions with HNSW. */
const HNSW_MAX_DIMENSIONS = 2_000;

/** A vector as PostgreSQL array text; float32 values print exactly and parse back to the same float4. */
const arrayText = (vector: Float32Array): string => `{${Array.from(vector).join(',')}}`;

/**
 * Vector storage and search. Embeddings are `real[]` (so the schema does not depend on pgvector);
 * with pgvector installed, a partial HNSW index per dimension count (`vector_cosine_ops` over
 * `vector::vector(N)`) answers broad searches, with iterative scans in strict order so that filters
 * never shrink a result below `limit`. Narrow filters (at most 5,000 candidates) and zero queries
 * are exact, as the contract says. Without pgvector every search is an exact scan in SQL.
 */
export async function createPostgresVectorSearch(
  database: PostgresDatabase,
  usePgvector = true,
  warn: (message: string) => void = console.warn,
  tailLimit = TAIL_LIMIT,
  efConstruction = DEFAULT_EF_CONSTRUCTION,
) {
  const indexed = usePgvector && (await installPgvector(database));
  /** Dimension counts whose index this process has made sure of (CREATE INDEX IF NOT EXISTS is idempotent). */
  const ensured = new Set<number>();
  const wanted = new Set<number>();
  /** Whether vectors may wait in the tail since the indexer last emptied it (else it skips its pass). */
  let tailWritten = false;
  /** How many filtered candidates there are, counting no further than past the exact-search limit. */
  const candidates = createVectorCandidateCounts(database, EXACT_SEARCH_LIMIT + 1);
  /** Exact searches answered from the candidates kept in process at the current revision. */
  const scans = createExactScanCache(database);

  const dimensionsOf = async (client: Queryable, tenantId: string, model: string) => {
    const [row] = await client.query<{ dimensions: number }>(
      'SELECT dimensions FROM memory_vector_spaces WHERE tenant_id = $1 AND model = $2',
      [tenantId, model],
    );
    return row?.dimensions;
  };

  /** Checks every vector against its model's dimensions (the first stored fixes them) and stores them. */
  const store = async (client: Queryable, tenantId: string, embeddings: PendingEmbedding[]) => {
    if (embeddings.length === 0) return;
    const models = [...new Set(embeddings.map((embedding) => embedding.model))];
    const known = async () =>
      new Map(
        (
          await client.query<{ model: string; dimensions: number }>(
            'SELECT model, dimensions FROM memory_vector_spaces WHERE tenant_id = $1 AND model = ANY($2::text[])',
            [tenantId, models],
          )
        ).map((row) => [row.model, row.dimensions]),
      );
    const dimensions = await known();
    const fresh = new Map<string, number>();
    for (const { model, vector, path } of embeddings) {
      assertUsableVector(vector, path);
      assertDimensions(model, dimensions.get(model), vector, path);
      if (!dimensions.has(model)) fresh.set(model, vector.length);
      dimensions.set(model, vector.length);
    }
    if (fresh.size > 0) {
      // Another server may fix a new model's dimensions at the same moment: the loser re-checks.
      await client.query(
        `INSERT INTO memory_vector_spaces (tenant_id, model, dimensions)
        SELECT $1, model, dimensions FROM unnest($2::text[], $3::int[]) AS s(model, dimensions)
        ON CONFLICT DO NOTHING`,
        [tenantId, [...fresh.keys()], [...fresh.values()]],
      );
      const agreed = await known();
      for (const { model, vector, path } of embeddings)
        assertDimensions(model, agreed.get(model), vector, path);
    }
    const rows = embeddings.filter((embedding) => embedding.memoryPk !== null);
    for (const row of rows) wanted.add(row.vector.length);
    if (rows.length === 0) return;
    // With room in the tail, vectors go in outside the graph (`indexed` false) and the indexer
    // moves them in after commit; a full tail makes the write pay for its graph insertion itself.
    const written = await client.query<{ indexed: boolean }>(
      `INSERT INTO memory_embeddings (memory_pk, tenant_id, model, dimensions, norm, vector, indexed)
      SELECT pk, $1, model, cardinality(vector::real[]), norm, vector::real[],
        NOT ($6 AND cardinality(vector::real[]) <= ${HNSW_MAX_DIMENSIONS}
          AND (SELECT count(*) FROM (SELECT 1 FROM memory_embeddings WHERE NOT indexed LIMIT $7) AS t) < $7)
      FROM unnest($2::bigint[], $3::text[], $4::float8[], $5::text[]) AS e(pk, model, norm, vector)
      ON CONFLICT (memory_pk) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions,
        norm = excluded.norm, vector = excluded.vector, indexed = excluded.indexed
      RETURNING indexed`,
      [
        tenantId,
        rows.map((row) => row.memoryPk),
        rows.map((row) => row.model),
        rows.map((row) => vectorNorm(row.vector)),
        rows.map((row) => arrayText(row.vector)),
        indexed,
        tailLimit,
      ],
    );
    // Only a write that left vectors in the tail gives the indexer work (a rolled-back one: one idle pass).
    if (written.some((row) => !row.indexed)) tailWritten = true;
  };

  /**
   * Builds the HNSW index of a dimension count once more than 5,000 vectors of it are stored, with
   * `efConstruction` (docs/stores/postgres.md). Searches over at most 5,000 candidates are exact
   * anyway, and building over the rows in bulk is several times faster than inserting each into a
   * growing graph. Resolves whether the index exists now.
   */
  const build = (dimensions: number) =>
    database.transaction(async (client) => {
      const name = `memory_embeddings_hnsw_${dimensions}`;
      const [exists] = await client.query(
        'SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1',
        [name],
      );
      if (exists) return true;
      const [row] = await client.query<{ total: number }>(
        `SELECT count(*)::bigint AS total FROM (SELECT 1 FROM memory_embeddings WHERE dimensions = $1 LIMIT $2) AS c`,
        [dimensions, EXACT_SEARCH_LIMIT + 1],
      );
      if ((row?.total ?? 0) <= EXACT_SEARCH_LIMIT) return false;
      // Servers building the same index at once would collide in the catalog: one at a time.
      await client.query(
        "SELECT pg_advisory_xact_lock(hashtextextended('engram-hnsw:' || current_schema(), 0))",
      );
      // The rows written so far join the graph in the bulk build rather than one by one.
      await client.query(
        'UPDATE memory_embeddings SET indexed = true WHERE dimensions = $1 AND NOT indexed',
        [dimensions],
      );
      await client.query(
        `CREATE INDEX IF NOT EXISTS ${name} ON memory_embeddings
        USING hnsw ((vector::vector(${dimensions})) vector_cosine_ops) WITH (m = 16, ef_construction = ${efConstruction})
        WHERE dimensions = ${dimensions} AND indexed`,
      );
      // Fresh statistics, so that the planner weighs the new index against a scan at once rather
      // than after autovacuum's next analyze (with stale row counts it sorts every candidate).
      await client.query('ANALYZE memory_embeddings');
      await client.query('ANALYZE memories');
      return true;
    });

  /** Dimension counts whose build failed, by when they may be tried again. */
  const failedUntil = new Map<number, number>();
  let running: Promise<void> | null = null;
  let again = false;
  let stopping = false;

  /** Builds, one at a time, every index this process's writes may have made due. Never rejects. */
  const buildDue = async () => {
    for (const dimensions of wanted) {
      if (ensured.has(dimensions) || dimensions > HNSW_MAX_DIMENSIONS) continue;
      if ((failedUntil.get(dimensions) ?? 0) > Date.now()) continue;
      try {
        if (await build(dimensions)) ensured.add(dimensions);
      } catch (error) {
        failedUntil.set(dimensions, Date.now() + BUILD_RETRY_MS);
        warn(
          `engram: building the vector index memory_embeddings_hnsw_${dimensions} failed (vector search stays exact; retried on a write after ${BUILD_RETRY_MS / 60_000} minutes): ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  };

  /**
   * Moves up to INDEX_CHUNK tail vectors whose graph exists into it; how many it moved. Short
   * transactions: a chunk holds its rows' locks only while pgvector inserts them, and workers of
   * any server skip each other's rows.
   */
  const indexChunk = async (): Promise<number> => {
    const rows = await database.query<{ memory_pk: number }>(
      `WITH picked AS (
        SELECT memory_pk FROM memory_embeddings WHERE NOT indexed AND dimensions = ANY($1::int[])
        LIMIT $2 FOR UPDATE SKIP LOCKED)
      UPDATE memory_embeddings e SET indexed = true FROM picked WHERE e.memory_pk = picked.memory_pk
      RETURNING e.memory_pk`,
      [[...ensured], INDEX_CHUNK],
    );
    return rows.length;
  };

  /** Empties the tail with INDEX_WORKERS connections at once (HNSW insertion is one core each). Never rejects. */
  const drain = async () => {
    if (ensured.size === 0 || !tailWritten) return;
    tailWritten = false;
    const worker = async () => {
      while (!stopping && (await indexChunk()) > 0) {}
    };
    try {
      await Promise.all(Array.from({ length: INDEX_WORKERS }, worker));
    } catch (error) {
      // Searches stay exact over the tail; the next write tries again.
      tailWritten = true;
      warn(
        `engram: moving new vectors into the vector index failed (they are searched exactly meanwhile; retried on the next write): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };

  /**
   * After a committed write: builds the due indexes and moves the tail into them, in the
   * background. A build can outlast statement_timeout on a large table, and the write it follows
   * is already committed: it must not wait for the build or fail with it. Once a process has seen
   * an index (built here or by another server), it checks no more.
   */
  const afterWrite = (): void => {
    if (!indexed || stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await buildDue();
        await drain();
      } while (again && !stopping);
    })().finally(() => {
      running = null;
    });
  };

  /** Resolves once this process has no index build or tail move running. */
  const settled = async (): Promise<void> => {
    while (running) await running;
  };

  /** Stops the background work at its next chunk and waits for it (closing the store). */
  const stop = async (): Promise<void> => {
    stopping = true;
    await settled();
  };

  // A server that stopped (or died) with vectors in the tail left them there: take them up.
  if (indexed) {
    const tail = await database.query<{ dimensions: number }>(
      'SELECT DISTINCT dimensions FROM memory_embeddings WHERE NOT indexed',
    );
    for (const row of tail) wanted.add(row.dimensions);
    if (tail.length > 0) {
      tailWritten = true;
      afterWrite();
    }
  }

  /** Exact nearest neighbours: every filtered candidate's distance, in SQL. */
  const exact = async (
    tenantId: string,
    vector: Float32Array,
    model: string,
    filter: MemoryFilter,
    limit: number,
  ) => {
    const parameters = new SqlParameters();
    const query = parameters.add(arrayText(vector), '::real[]');
    const queryNorm = parameters.add(vectorNorm(vector), '::float8');
    const distance = indexed
      ? `(e.vector::vector) <=> (${query}::vector)`
      : `1 - (SELECT sum(a::float8 * b::float8) FROM unnest(e.vector, ${query}) AS p(a, b)) / (e.norm * ${queryNorm})`;
    const where = memoryFilterSql(tenantId, filter, parameters);
    return database.query<VectorRow>(
      `SELECT m.id, m.session_id, m.entities, CASE WHEN e.norm = 0 OR ${queryNorm} = 0 THEN 1 ELSE ${distance} END AS distance
      FROM memories m JOIN memory_embeddings e ON e.memory_pk = m.pk
      WHERE e.model = ${parameters.add(model)} AND ${where}
      ORDER BY distance, m.id LIMIT ${parameters.add(limit)}`,
      parameters.values,
    );
  };

  /**
   * Approximate nearest neighbours: the HNSW index of `dimensions` over the vectors in its graph,
   * and an exact scan of the tenant's tail (vectors not moved in yet), in one statement. Every
   * distance is exact.
   */
  const approximate = async (
    tenantId: string,
    vector: Float32Array,
    model: string,
    dimensions: number,
    filter: MemoryFilter,
    limit: number,
  ) => {
    const parameters = new SqlParameters();
    const distance = `(e.vector::vector(${dimensions})) <=> (${parameters.add(arrayText(vector))}::real[]::vector(${dimensions}))`;
    const modelParameter = parameters.add(model);
    const limitParameter = parameters.add(limit);
    const branch = (graph: boolean) => `(SELECT m.id, m.session_id, m.entities, ${distance} AS distance
      FROM memory_embeddings e JOIN memories m ON m.pk = e.memory_pk
      WHERE ${graph ? 'e.indexed' : `NOT e.indexed AND e.tenant_id = ${parameters.add(tenantId)}`}
        AND e.dimensions = ${dimensions} AND e.model = ${modelParameter} AND e.norm > 0
        AND ${memoryFilterSql(tenantId, filter, parameters)}
      ORDER BY ${distance} LIMIT ${limitParameter})`;
    return database.query<VectorRow>(`${branch(true)} UNION ALL ${branch(false)}`, parameters.values);
  };

  /**
   * Whether the HNSW index of `dimensions` exists (built here or by another server). Without it a
   * search is exact: the two-branch statement of `approximate` has no graph to read, and on tables
   * not yet analyzed the planner can join its tail branch quadratically.
   */
  const graphExists = async (dimensions: number): Promise<boolean> => {
    if (ensured.has(dimensions)) return true;
    const [exists] = await database.query(
      'SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1',
      [`memory_embeddings_hnsw_${dimensions}`],
    );
    if (exists) ensured.add(dimensions);
    return exists !== undefined;
  };

  const nearest = async (
    tenantId: string,
    vector: Float32Array,
    model: string,
    dimensions: number,
    filter: MemoryFilter,
    limit: number,
  ) => {
    let hits: VectorRow[] | null | undefined;
    const nonZero = vectorNorm(vector) > 0;
    const indexable = indexed && dimensions <= HNSW_MAX_DIMENSIONS && nonZero;
    const { total, revision } = await candidates(tenantId, model, filter);
    if (indexable && total > EXACT_SEARCH_LIMIT && (await graphExists(dimensions))) {
      hits = await approximate(tenantId, vector, model, dimensions, filter, limit);
      // The index ran out of candidates before the limit (rare with iterative scans): answer exactly.
      if (hits.length < limit) hits = undefined;
    } else if (nonZero && total <= EXACT_SEARCH_LIMIT) {
      hits = await scans(tenantId, model, filter, revision, total, vector, limit);
    }
    hits ??= await exact(tenantId, vector, model, filter, limit);
    return hits
      .map((hit) => ({
        id: hit.id,
        distance: Math.min(2, Math.max(0, Number(hit.distance))),
        traits: { sessionId: hit.session_id, entities: hit.entities },
      }))
      .sort(
        (left, right) =>
          left.distance - right.distance || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0),
      )
      .slice(0, limit);
  };

  return { indexed, dimensionsOf, store, afterWrite, settled, stop, nearest };
}
