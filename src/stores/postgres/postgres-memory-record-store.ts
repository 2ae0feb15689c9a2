import { NotFoundError } from '../../core/errors.js';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import type { InsertResult, MemoryRecordStore, NewMemoryRecord } from '../memory-record-store.js';
import {
  accessTimes,
  alreadySupersededError,
  assertDimensions,
  assertUsableVector,
  duplicateMemoryIdError,
  historyRange,
  isoTimestamp,
  memoryVersionConflict,
  nextVersionOf,
  pageBounds,
  toMemoryRecord,
  uniqueIds,
} from '../memory-rules.js';
import { memoryFilterSql, SqlParameters } from './memory-filter-sql.js';
import {
  INSERT_MEMORIES,
  MEMORY_SELECT,
  type MemoryRow,
  memoryColumnArrays,
  rowToMemory,
  UPDATE_VERSION,
  VERSION_COLUMNS,
  versionValues,
} from './memory-rows.js';
import { type PostgresDatabase, type Queryable, sqlState } from './postgres-database.js';
import { createPostgresMemoryCounts } from './postgres-memory-counts.js';
import { readMemoryHistory } from './postgres-memory-history.js';
import { postgresSessionNeighbors } from './postgres-session-neighbors.js';
import { createPostgresTextSearch } from './postgres-text-search.js';
import { searchVectorMirror } from './postgres-vector-mirror.js';
import { createPostgresVectorSearch, type PendingEmbedding } from './postgres-vector-search.js';

/** The contract, plus whether pgvector answers vector search (else an exact scan in SQL). */
export type PostgresMemoryRecordStore = MemoryRecordStore & {
  readonly vectorIndexed: boolean;
  /**
   * Resolves once no background work of this process is running: vector index builds started by
   * its writes, moving new vectors into the graph until none are left, and text index builds.
   */
  settled(): Promise<void>;
  /** Stops the background work at its next step and waits for it. */
  stop(): Promise<void>;
  /** Prunes the text indexes' change log now (each server does every minute); for tests. */
  pruneChanges(retentionMs?: number): Promise<void>;
  /** How many text searches of this process were answered by pruned BM25 (`bm25Sql`). */
  prunedTextSearches(): number;
};

const ORDER_BY = {
  created_desc: 'm.created_at DESC, m.id DESC',
  created_asc: 'm.created_at ASC, m.id ASC',
  last_accessed_desc: 'm.last_accessed DESC, m.id DESC',
} as const;

/**
 * The long-term memory part of the PostgreSQL driver. Filters become SQL (`memory-filter-sql.ts`);
 * limits and counts run in the database, and any server answers any search from what is
 * committed: in-process state (counts, kept candidates, text indexes) is validated against the
 * tenant's memory revision, or caught up with the change log, in the statement that uses it
 * (`postgres-memory-counts.ts`, `exact-scan-cache.ts`, `postgres-text-cache.ts`). Text search
 * ranks in the tenant's in-process BM25 index (BM25 in SQL over the GIN index of `text_search`
 * while it is built); vector search uses pgvector's HNSW index when the extension is installed
 * (`postgres-vector-search.ts`).
 */
export async function createPostgresMemoryRecordStore(
  database: PostgresDatabase,
  options: {
    vectorExtension?: boolean;
    warn?: (message: string) => void;
    tailLimit?: number;
    efConstruction?: number;
    inProcessText?: boolean;
    inProcessVectors?: boolean;
  } = {},
): Promise<PostgresMemoryRecordStore> {
  const vectors = await createPostgresVectorSearch(
    database,
    options.vectorExtension ?? true,
    options.warn,
    options.tailLimit,
    options.efConstruction,
  );
  const count = createPostgresMemoryCounts(database);
  const text = createPostgresTextSearch(
    database,
    options.inProcessText ?? true,
    options.inProcessVectors ?? true,
  );

  /** Inserts `records` (already checked for duplicates) and their embeddings; a taken id is a ValidationError. */
  const insertRecords = async (
    client: Queryable,
    tenantId: string,
    records: { record: MemoryRecord; input: NewMemoryRecord; path: (string | number)[] }[],
  ): Promise<void> => {
    if (records.length === 0) return;
    const taken = await client.query<{ id: string }>(
      'SELECT id FROM memories WHERE tenant_id = $1 AND id = ANY($2::text[])',
      [tenantId, records.map((entry) => entry.record.id)],
    );
    const takenIds = new Set(taken.map((row) => row.id));
    const seen = new Set<string>();
    for (const { record, path } of records) {
      if (takenIds.has(record.id) || seen.has(record.id))
        throw duplicateMemoryIdError(record.id, [...path, 'id']);
      seen.add(record.id);
    }
    let rows: { pk: number; id: string }[];
    try {
      rows = await client.query<{ pk: number; id: string }>(
        INSERT_MEMORIES,
        memoryColumnArrays(records.map((entry) => entry.record)),
      );
    } catch (error) {
      // Another server inserted one of these ids since the check above.
      const cause = (error as { cause?: unknown }).cause;
      if (sqlState(cause) === '23505') throw duplicateMemoryIdError(records[0]?.record.id ?? '', ['records']);
      throw error;
    }
    const pkById = new Map(rows.map((row) => [row.id, row.pk]));
    const embeddings: PendingEmbedding[] = [];
    for (const { record, input, path } of records) {
      if (!input.embedding) continue;
      embeddings.push({
        memoryPk: pkById.get(record.id) ?? 0,
        model: input.embedding.model,
        vector: input.embedding.vector,
        path: [...path, 'embedding', 'vector'],
      });
    }
    await vectors.store(client, tenantId, embeddings);
  };

  const selectByIds = async (client: Queryable, tenantId: string, ids: string[]) =>
    client.query<MemoryRow>(`${MEMORY_SELECT} WHERE m.tenant_id = $1 AND m.id = ANY($2::text[])`, [
      tenantId,
      ids,
    ]);

  /**
   * Logs the rows `pks` at a new memory revision of the tenant in the writing transaction
   * (`engram_log_memory_rows`, migration 8: the revision row's lock is held to commit, so
   * revisions grow in commit order). Triggers on `memories` do this for every row inserted,
   * deleted or changed in a field a filter reads; this covers what they do not see: vectors
   * (which the in-process mirrors hold too), and new versions whose filter fields did not change.
   */
  const logRows = (client: Queryable, tenantId: string, pks: number[]) =>
    client.query(
      'SELECT engram_log_memory_rows(array_fill($1::text, ARRAY[cardinality($2::bigint[])]), $2::bigint[])',
      [tenantId, pks],
    );

  return {
    // Without pgvector every vector search is an exact scan in SQL.
    capabilities: { vectorSearch: vectors.indexed ? 'index' : 'brute-force' },
    vectorIndexed: vectors.indexed,
    settled: () => Promise.all([vectors.settled(), text.settled()]).then(() => undefined),
    stop: () => Promise.all([vectors.stop(), text.stop()]).then(() => undefined),
    pruneChanges: text.pruneChanges,
    prunedTextSearches: text.prunedTextSearches,

    insertMemories: (tenantId, records, options = {}) =>
      database
        .transaction(async (client) => {
          const result: InsertResult = { inserted: [], duplicates: [] };
          const deduplicate = options.deduplicate !== false;
          const hashes = deduplicate ? uniqueIds(records.map((record) => record.memoryHash)) : [];
          // The oldest current record with a hash is "the" duplicate (memories_by_hash index).
          const existing = await client.query<MemoryRow & { memory_hash: string }>(
            `SELECT DISTINCT ON (m.memory_hash) ${MEMORY_SELECT.slice('SELECT '.length)}
          WHERE m.tenant_id = $1 AND m.memory_hash = ANY($2::text[]) AND m.valid_to IS NULL
          ORDER BY m.memory_hash, m.pk`,
            [tenantId, hashes],
          );
          const byHash = new Map<string, MemoryRecord>(
            existing.map((row) => [row.memory_hash, rowToMemory(row)]),
          );
          const pending: { record: MemoryRecord; input: NewMemoryRecord; path: (string | number)[] }[] = [];
          records.forEach((input, index) => {
            const duplicate = deduplicate ? byHash.get(input.memoryHash) : undefined;
            if (duplicate) {
              result.duplicates.push({ requestedId: input.id, existing: structuredClone(duplicate) });
              return;
            }
            const record = toMemoryRecord(tenantId, input);
            byHash.set(input.memoryHash, record);
            pending.push({ record, input, path: ['records', index] });
            result.inserted.push(record);
          });
          // The insert's trigger moves the revision (change-log-migration.ts).
          await insertRecords(client, tenantId, pending);
          return result;
        })
        .then((result) => {
          vectors.afterWrite();
          return result;
        }),

    async getMemories(tenantId, ids) {
      const wanted = uniqueIds(ids);
      if (wanted.length === 0) return [];
      const found = new Map(
        (await selectByIds(database, tenantId, wanted)).map((row) => [row.id, rowToMemory(row)]),
      );
      return wanted.flatMap((id) => found.get(id) ?? []);
    },

    updateMemory: (tenantId, id, next, options = {}) =>
      database
        .transaction(async (client) => {
          const [row] = await client.query<MemoryRow>(
            `${MEMORY_SELECT} WHERE m.tenant_id = $1 AND m.id = $2 FOR UPDATE OF m`,
            [tenantId, id],
          );
          if (!row) throw new NotFoundError('Memory', id);
          const current = rowToMemory(row);
          if (current.validTo !== null) throw alreadySupersededError(id, current.supersededBy);
          if (options.expectedVersion !== undefined && options.expectedVersion !== current.version) {
            throw memoryVersionConflict(options.expectedVersion, current.version);
          }
          const record = nextVersionOf(current, next);
          // The prior version goes to the history, closed where the new one starts.
          await client.query(
            `INSERT INTO memory_versions (memory_pk, ${VERSION_COLUMNS.join(', ')}, valid_to)
            SELECT pk, ${VERSION_COLUMNS.join(', ')}, $2 FROM memories WHERE pk = $1`,
            [row.pk, Date.parse(record.validFrom)],
          );
          await client.query(UPDATE_VERSION, [...versionValues(record), row.pk]);
          if (next.embedding) {
            await vectors.store(client, tenantId, [
              {
                memoryPk: row.pk,
                model: next.embedding.model,
                vector: next.embedding.vector,
                path: ['next', 'embedding', 'vector'],
              },
            ]);
          } else await client.query('DELETE FROM memory_embeddings WHERE memory_pk = $1', [row.pk]);
          await logRows(client, tenantId, [row.pk]);
          return { ...record, embeddingModel: next.embedding?.model ?? null };
        })
        .then((record) => {
          vectors.afterWrite();
          return record;
        }),

    async memoryHistory(tenantId, id, range) {
      const [row] = await selectByIds(database, tenantId, [id]);
      return row ? readMemoryHistory(database, row, historyRange(range)) : { versions: [], nextBefore: null };
    },

    supersede: (tenantId, id, replacement) =>
      database
        .transaction(async (client) => {
          const [old] = await client.query<MemoryRow>(
            'SELECT pk, valid_to, superseded_by FROM memories WHERE tenant_id = $1 AND id = $2 FOR UPDATE',
            [tenantId, id],
          );
          if (!old) throw new NotFoundError('Memory', id);
          if (old.valid_to !== null) throw alreadySupersededError(id, old.superseded_by);
          const input = { ...replacement, supersedes: id };
          const record = toMemoryRecord(tenantId, input);
          await insertRecords(client, tenantId, [{ record, input, path: ['replacement'] }]);
          await client.query('UPDATE memories SET superseded_by = $1, valid_to = $2 WHERE pk = $3', [
            record.id,
            Date.parse(record.validFrom),
            old.pk,
          ]);
          return record;
        })
        .then((record) => {
          vectors.afterWrite();
          return record;
        }),

    deleteMemories: (tenantId, ids) =>
      database.transaction(async (client) => {
        // The foreign key cascades to the embeddings; the GIN index follows the rows; the delete's
        // trigger moves the revision.
        const rows = await client.query(
          'DELETE FROM memories WHERE tenant_id = $1 AND id = ANY($2::text[]) RETURNING pk',
          [tenantId, uniqueIds(ids)],
        );
        return rows.length;
      }),

    async memoryRevision(tenantId) {
      const [row] = await database.query<{ revision: number }>(
        'SELECT revision FROM memory_revisions WHERE tenant_id = $1',
        [tenantId],
      );
      return String(row?.revision ?? 0);
    },

    countMemories: count,

    async listMemories(tenantId, filter, page) {
      const { limit, offset, order } = pageBounds(page);
      const parameters = new SqlParameters();
      const where = memoryFilterSql(tenantId, filter, parameters);
      // One statement: the page and its total come from one snapshot.
      const rows = await database.query<MemoryRow & { total: number }>(
        `WITH matches AS (SELECT m.pk FROM memories m WHERE ${where})
        SELECT page.*, (SELECT count(*) FROM matches)::bigint AS total
        FROM (SELECT 1) AS one LEFT JOIN LATERAL (
          ${MEMORY_SELECT} WHERE m.pk IN (SELECT pk FROM matches)
          ORDER BY ${ORDER_BY[order]} LIMIT ${parameters.add(limit)} OFFSET ${parameters.add(offset)}
        ) AS page ON true`,
        parameters.values,
      );
      const total = rows[0]?.total ?? 0;
      return { memories: rows.filter((row) => row.id !== null).map(rowToMemory), total };
    },

    searchText: text.searchText,

    async searchVector(tenantId, vector, model, filter, limit) {
      assertUsableVector(vector, ['vector']);
      if (filter.lastAccessed === undefined) {
        const mirrored = (await text.mirror(tenantId))?.vectors?.byModel.get(model);
        if (mirrored) {
          assertDimensions(model, mirrored.dimensions, vector, ['vector']);
          return searchVectorMirror(mirrored, vector, filter, limit);
        }
      }
      const dimensions = await vectors.dimensionsOf(database, tenantId, model);
      if (dimensions === undefined) return [];
      assertDimensions(model, dimensions, vector, ['vector']);
      if (limit <= 0) return [];
      return vectors.nearest(tenantId, vector, model, dimensions, filter, limit);
    },

    sessionNeighbors: (tenantId, ids, filter, window) =>
      postgresSessionNeighbors(database, tenantId, ids, filter, window),

    async recordAccess(tenantId, ids, at, times) {
      await database.query(
        `UPDATE memories SET access_count = access_count + $4, last_accessed = $1
        WHERE tenant_id = $2 AND id = ANY($3::text[])`,
        [Date.parse(isoTimestamp(at)), tenantId, uniqueIds(ids), accessTimes(times)],
      );
    },

    findUnembedded: (tenantId, model, limit) =>
      database.query<{ id: string; text: string }>(
        `SELECT m.id, m.text FROM memories m
        WHERE m.tenant_id = $1 AND m.valid_to IS NULL
          AND NOT EXISTS (SELECT 1 FROM memory_embeddings e WHERE e.memory_pk = m.pk AND e.model = $2)
        ORDER BY m.created_at, m.id LIMIT $3`,
        [tenantId, model, Math.max(0, limit)],
      ),

    setEmbeddings: (tenantId, model, embeddings) =>
      database
        .transaction(async (client) => {
          const rows = await client.query<{ id: string; pk: number }>(
            'SELECT id, pk FROM memories WHERE tenant_id = $1 AND id = ANY($2::text[])',
            [tenantId, embeddings.map((embedding) => embedding.id)],
          );
          const pkById = new Map(rows.map((row) => [row.id, row.pk]));
          // A record deleted since `findUnembedded` listed it needs no vector; the vector is still checked.
          await vectors.store(
            client,
            tenantId,
            embeddings.map(({ id, vector }, index) => ({
              memoryPk: pkById.get(id) ?? null,
              model,
              vector,
              path: ['embeddings', index, 'vector'],
            })),
          );
          if (rows.length > 0)
            await logRows(
              client,
              tenantId,
              rows.map((row) => row.pk),
            );
        })
        .then(() => vectors.afterWrite()),
  };
}
