import type { Database } from 'better-sqlite3';
import { NotFoundError, StoreError } from '../../core/errors.js';
import type { MemoryFilter, MemoryRecord } from '../../core/schemas/memory-record.js';
import type {
  HistoryRange,
  InsertOptions,
  InsertResult,
  MemoryPage,
  MemoryRecordStore,
  MemoryUpdate,
  NewMemoryRecord,
  UpdateOptions,
} from '../memory-record-store.js';
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
  readHistoryPage,
  toMemoryRecord,
  uniqueIds,
} from '../memory-rules.js';
import { memoryFilterSql } from './memory-filter-sql.js';
import {
  type MemoryRow,
  memoryParameters,
  rawRowReader,
  rowToMemory,
  rowToMemoryVersion,
  vectorBlob,
} from './memory-record-rows.js';
import { countSql, listSql, prepareMemoryStatements, StatementCache } from './memory-record-statements.js';
import { isSqliteError, toStoreFailure } from './open-database.js';
import { createBatchWriter } from './sqlite-batch-writer.js';
import { createSqliteMemoryCounts } from './sqlite-memory-counts.js';
import { createSqliteMemorySearch } from './sqlite-memory-search.js';
import { createSessionNeighbors } from './sqlite-session-neighbors.js';
import { SqliteTextCache } from './sqlite-text-cache.js';
import { SqliteVectorCache } from './sqlite-vector-cache.js';
import { installVectorDistance } from './vector-distance.js';

/** The contract, plus what benchmarks and tests use to wait for background index builds. */
export type SqliteMemoryRecordStore = MemoryRecordStore & {
  /**
   * Resolves once no in-process index is being built (a text index, a vector collection's load, or
   * its index's training); searches never wait for one.
   */
  settled(): Promise<void>;
};

export interface SqliteMemoryRecordStoreOptions {
  /** Load sqlite-vec for distances (default); false forces the JavaScript fallback. */
  vectorExtension?: boolean;
}

/**
 * Creates the SQLite long-term memory driver on an open, migrated database (the session store's
 * connection, so both live in one file). Every write is one `BEGIN IMMEDIATE` transaction, in
 * which the FTS5 index follows the rows by trigger; reads that take two statements share one
 * snapshot. Filters become SQL (see `memory-filter-sql.ts`), and ranking, limits and counts run in
 * SQLite, so search returns only the rows asked for; the exception is text and vector search,
 * answered by per-tenant in-process indexes that follow every commit (`sqlite-text-cache.ts`,
 * `sqlite-vector-cache.ts`) once loaded in the background (in SQL until then, and for filters on
 * `lastAccessed`).
 */
export async function createSqliteMemoryRecordStore(
  database: Database,
  options: SqliteMemoryRecordStoreOptions = {},
): Promise<SqliteMemoryRecordStore> {
  const distance = await installVectorDistance(database, options.vectorExtension ?? true);
  const statements = prepareMemoryStatements(database);
  const readRow = rawRowReader(statements.selectByIds.columns().map((column) => column.name));
  const cache = new StatementCache(database);
  const vectors = new SqliteVectorCache(database);
  const texts = new SqliteTextCache(database);

  // The change log's newest entry: triggers log every insert, delete and change of a memory or its
  // vector (not access statistics), and AUTOINCREMENT never reuses a seq, whoever writes the file.
  const latestChange = database
    .prepare<[], number>('SELECT coalesce(max(seq), 0) FROM memory_vector_changes')
    .pluck();

  const dimensionsOf = (tenantId: string, model: string): number | undefined =>
    statements.selectDimensions.get(tenantId, model)?.dimensions;
  const search = createSqliteMemorySearch({ cache, distance, vectors, texts, dimensionsOf });

  /**
   * Stores `vector` as the record's embedding, checking and recording the model's dimensions. A
   * write remembers the spaces it checked (`spaces`), so a batch reads and records each one once.
   */
  const storeEmbedding = (
    tenantId: string,
    memoryPk: number,
    model: string,
    vector: Float32Array,
    path: (string | number)[],
    spaces: Map<string, number>,
  ): void => {
    assertUsableVector(vector, path);
    const known = spaces.get(model) ?? dimensionsOf(tenantId, model);
    assertDimensions(model, known, vector, path);
    if (known === undefined) statements.insertDimensions.run(tenantId, model, vector.length);
    spaces.set(model, vector.length);
    statements.upsertEmbedding.run(memoryPk, model, vectorBlob(vector));
  };

  /** Inserts one record (and its embedding); a taken id is a ValidationError at `path`. */
  const insertRecord = (
    tenantId: string,
    input: NewMemoryRecord,
    path: (string | number)[],
    spaces: Map<string, number>,
  ): MemoryRecord => {
    const record = toMemoryRecord(tenantId, input);
    let row: { pk: number } | undefined;
    try {
      row = statements.insertMemory.get(memoryParameters(record));
    } catch (error) {
      if (isSqliteError(error) && error.code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw duplicateMemoryIdError(input.id, [...path, 'id']);
      }
      throw error;
    }
    if (!row) throw new StoreError('SQLite returned no memory row');
    if (input.embedding) {
      storeEmbedding(
        tenantId,
        row.pk,
        input.embedding.model,
        input.embedding.vector,
        [...path, 'embedding', 'vector'],
        spaces,
      );
    }
    return record;
  };

  const writeRecords = createBatchWriter(database);

  const insert = database.transaction(
    (tenantId: string, records: NewMemoryRecord[], options: InsertOptions): InsertResult => {
      // Validated in record order first, with the checks (and errors) of one insert per record: a
      // duplicate of an earlier record of the batch is resolved once that record is written.
      const taken = new Set(
        statements.selectTakenIds.all(tenantId, JSON.stringify(records.map((input) => input.id))),
      );
      const spaces = new Map<string, number>();
      const newSpaces: { model: string; dimensions: number }[] = [];
      const batchHashes = new Set<string>();
      const toWrite: MemoryRecord[] = [];
      const toWriteInputs: NewMemoryRecord[] = [];
      const outcomes: (
        | { inserted: MemoryRecord }
        | { requestedId: string; existing?: MemoryRow; hash: string }
      )[] = [];
      records.forEach((input, index) => {
        if (options.deduplicate !== false) {
          const existing = statements.selectCurrentByHash.get(tenantId, input.memoryHash);
          if (existing || batchHashes.has(input.memoryHash)) {
            outcomes.push({
              requestedId: input.id,
              hash: input.memoryHash,
              ...(existing ? { existing } : {}),
            });
            return;
          }
        }
        const record = toMemoryRecord(tenantId, input);
        if (taken.has(input.id)) throw duplicateMemoryIdError(input.id, ['records', index, 'id']);
        if (input.embedding) {
          const { model, vector } = input.embedding;
          const path = ['records', index, 'embedding', 'vector'];
          assertUsableVector(vector, path);
          const known = spaces.get(model) ?? dimensionsOf(tenantId, model);
          assertDimensions(model, known, vector, path);
          if (known === undefined) newSpaces.push({ model, dimensions: vector.length });
          spaces.set(model, vector.length);
        }
        taken.add(input.id);
        batchHashes.add(input.memoryHash);
        toWrite.push(record);
        toWriteInputs.push(input);
        outcomes.push({ inserted: record });
      });
      for (const { model, dimensions } of newSpaces)
        statements.insertDimensions.run(tenantId, model, dimensions);
      writeRecords(toWrite, toWriteInputs);
      const result: InsertResult = { inserted: [], duplicates: [] };
      for (const outcome of outcomes) {
        if ('inserted' in outcome) {
          result.inserted.push(outcome.inserted);
          continue;
        }
        const existing = outcome.existing ?? statements.selectCurrentByHash.get(tenantId, outcome.hash);
        if (!existing) throw new StoreError('SQLite lost a memory written in this batch');
        result.duplicates.push({ requestedId: outcome.requestedId, existing: rowToMemory(existing) });
      }
      vectors.pruneChanges();
      return result;
    },
  );

  const update = database.transaction(
    (tenantId: string, id: string, next: MemoryUpdate, options: UpdateOptions): MemoryRecord => {
      const row = statements.selectById.get(tenantId, id);
      if (!row) throw new NotFoundError('Memory', id);
      const current = rowToMemory(row);
      if (current.validTo !== null) throw alreadySupersededError(id, current.supersededBy);
      if (options.expectedVersion !== undefined && options.expectedVersion !== current.version) {
        throw memoryVersionConflict(options.expectedVersion, current.version);
      }
      const record = nextVersionOf(current, next);
      statements.archiveVersion.run(Date.parse(record.validFrom), row.pk);
      statements.updateVersion.run({ ...memoryParameters(record), pk: row.pk });
      if (next.embedding) {
        const { model, vector } = next.embedding;
        storeEmbedding(tenantId, row.pk, model, vector, ['next', 'embedding', 'vector'], new Map());
      } else statements.deleteEmbedding.run(row.pk);
      vectors.pruneChanges();
      return { ...record, embeddingModel: next.embedding?.model ?? null };
    },
  );

  const history = async (tenantId: string, id: string, range: Required<HistoryRange>) => {
    const row = statements.selectById.get(tenantId, id);
    if (!row) return { versions: [], nextBefore: null };
    return readHistoryPage(rowToMemory(row), range, {
      lengths: (below, count) => statements.selectHistoryLengths.all(row.pk, below, count),
      versions: (from, below) => statements.selectHistory.all(row.pk, from, below).map(rowToMemoryVersion),
    });
  };

  const supersede = database.transaction((tenantId: string, id: string, replacement: NewMemoryRecord) => {
    const old = statements.selectById.get(tenantId, id);
    if (!old) throw new NotFoundError('Memory', id);
    if (old.valid_to !== null) throw alreadySupersededError(id, old.superseded_by);
    const record = insertRecord(tenantId, { ...replacement, supersedes: id }, ['replacement'], new Map());
    statements.closeVersion.run(record.id, Date.parse(record.validFrom), old.pk);
    vectors.pruneChanges();
    return record;
  });

  const setEmbeddings = database.transaction(
    (tenantId: string, model: string, embeddings: { id: string; vector: Float32Array }[]) => {
      const spaces = new Map<string, number>();
      embeddings.forEach(({ id, vector }, index) => {
        const path = ['embeddings', index, 'vector'];
        const row = statements.selectPk.get(tenantId, id);
        // A record deleted since `findUnembedded` listed it needs no vector; the vector is still checked.
        if (row) storeEmbedding(tenantId, row.pk, model, vector, path, spaces);
        else {
          assertUsableVector(vector, path);
          assertDimensions(model, dimensionsOf(tenantId, model), vector, path);
        }
      });
      vectors.pruneChanges();
    },
  );

  const deleteMemories = database.transaction((tenantId: string, ids: string[]): number => {
    const deleted = statements.deleteByIds.run(tenantId, JSON.stringify(uniqueIds(ids))).changes;
    vectors.pruneChanges();
    return deleted;
  });

  const counts = createSqliteMemoryCounts(database, cache);

  // One read transaction: the page and the count see the same snapshot.

  const list = database.transaction((tenantId: string, filter: MemoryFilter, page: MemoryPage) => {
    const { limit, offset, order } = pageBounds(page);
    const where = memoryFilterSql(tenantId, filter);
    const total = cache.get<{ total: number }>(countSql(where)).get(where.parameters)?.total ?? 0;
    const bounds = { ...where.parameters, limit, offset };
    const rows = limit === 0 ? [] : cache.get<MemoryRow>(listSql(where, order)).all(bounds);
    return { memories: rows.map(rowToMemory), total };
  });

  // One read transaction: every anchor and its neighbours come from the same snapshot.
  const neighbors = createSessionNeighbors(database, cache, statements);

  /** Runs `work` unless the database is closed, mapping SQLite failures to StoreError. Always async. */
  const guarded = async <T>(work: () => T | Promise<T>): Promise<T> => {
    if (!database.open) throw new StoreError('The sqlite store is closed');
    try {
      return await work();
    } catch (error) {
      throw toStoreFailure(error);
    }
  };

  /** Commits `write`, then brings the in-process vector indexes up to date with it. */
  const written = <T>(write: () => T): Promise<T> =>
    guarded(() => {
      counts.clear();
      const result = write();
      vectors.afterWrite();
      texts.afterWrite();
      return result;
    });

  return {
    capabilities: { vectorSearch: 'index', vectorDistance: distance.engine },

    settled: async () => {
      await texts.settled();
      await vectors.settled();
    },

    insertMemories: (tenantId, records, options = {}) =>
      written(() => insert.immediate(tenantId, records, options)),

    getMemories: (tenantId, ids) =>
      guarded(() => {
        const wanted = uniqueIds(ids);
        const found = new Map(
          statements.selectByIds.all(tenantId, JSON.stringify(wanted)).map((values) => {
            const memory = readRow(values);
            return [memory.id, memory];
          }),
        );
        return wanted.flatMap((id) => found.get(id) ?? []);
      }),

    updateMemory: (tenantId, id, next, options = {}) =>
      written(() => update.immediate(tenantId, id, next, options)),

    memoryHistory: (tenantId, id, range) => guarded(() => history(tenantId, id, historyRange(range))),
    supersede: (tenantId, id, replacement) => written(() => supersede.immediate(tenantId, id, replacement)),
    deleteMemories: (tenantId, ids) => written(() => deleteMemories.immediate(tenantId, ids)),
    countMemories: (tenantId, filter) => guarded(() => counts.count(tenantId, filter)),
    listMemories: (tenantId, filter, page) => guarded(() => list(tenantId, filter, page)),

    searchText: (tenantId, query, filter, limit) =>
      guarded(() => search.text(tenantId, query, filter, limit)),
    searchVector: (tenantId, vector, model, filter, limit) =>
      guarded(() => search.vector(tenantId, vector, model, filter, limit)),

    sessionNeighbors: (tenantId, ids, filter, window) =>
      guarded(() => neighbors(tenantId, ids, filter, window)),

    memoryRevision: () => guarded(() => String(latestChange.get())),

    recordAccess: (tenantId, ids, at, times) =>
      guarded(() => {
        const bump = accessTimes(times);
        counts.clearAccessDependent();
        statements.recordAccess.run(
          bump,
          Date.parse(isoTimestamp(at)),
          tenantId,
          JSON.stringify(uniqueIds(ids)),
        );
      }),

    findUnembedded: (tenantId, model, limit) =>
      guarded(() => statements.findUnembedded.all(tenantId, model, Math.max(0, limit))),

    setEmbeddings: (tenantId, model, embeddings) =>
      written(() => setEmbeddings.immediate(tenantId, model, embeddings)),
  };
}
