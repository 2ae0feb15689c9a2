import type { Database } from 'better-sqlite3';
import { NotFoundError, StoreError } from '../../core/errors.js';
import type { MemoryFilter, MemoryRecord } from '../../core/schemas/memory-record.js';
import { CountCache } from '../count-cache.js';
import { compileStableMemoryFilter } from '../memory-filter.js';
import type {
  InsertOptions,
  InsertResult,
  MemoryPage,
  MemoryRecordStore,
  MemoryUpdate,
  NewMemoryRecord,
  SessionNeighbors,
  UpdateOptions,
} from '../memory-record-store.js';
import {
  alreadySupersededError,
  assertDimensions,
  assertUsableVector,
  duplicateMemoryIdError,
  historyLimit,
  isoTimestamp,
  memoryVersionConflict,
  nextVersionOf,
  pageBounds,
  toMemoryRecord,
  toMemoryVersion,
  uniqueIds,
} from '../memory-rules.js';
import { ftsMatchExpression, memoryFilterSql } from './memory-filter-sql.js';
import {
  type MemoryRow,
  memoryParameters,
  rawRowReader,
  rowToMemory,
  rowToMemoryVersion,
  vectorBlob,
} from './memory-record-rows.js';
import {
  countSql,
  listSql,
  prepareMemoryStatements,
  StatementCache,
  searchTextSql,
  searchVectorSql,
  sessionNeighborsSql,
} from './memory-record-statements.js';
import { isSqliteError, toStoreFailure } from './open-database.js';
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
 * SQLite, so search returns only the rows asked for; the exception is vector search in tenants
 * past 5,000 memories, answered by an in-process index that follows every commit
 * (`sqlite-vector-cache.ts`) once loaded in the background.
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

  const dimensionsOf = (tenantId: string, model: string): number | undefined =>
    statements.selectDimensions.get(tenantId, model)?.dimensions;

  /** Stores `vector` as the record's embedding, checking and recording the model's dimensions. */
  const storeEmbedding = (
    tenantId: string,
    memoryPk: number,
    model: string,
    vector: Float32Array,
    path: (string | number)[],
  ): void => {
    assertUsableVector(vector, path);
    assertDimensions(model, dimensionsOf(tenantId, model), vector, path);
    statements.insertDimensions.run(tenantId, model, vector.length);
    statements.upsertEmbedding.run(memoryPk, model, vectorBlob(vector));
  };

  /** Inserts one record (and its embedding); a taken id is a ValidationError at `path`. */
  const insertRecord = (
    tenantId: string,
    input: NewMemoryRecord,
    path: (string | number)[],
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
      storeEmbedding(tenantId, row.pk, input.embedding.model, input.embedding.vector, [
        ...path,
        'embedding',
        'vector',
      ]);
    }
    return record;
  };

  const insert = database.transaction(
    (tenantId: string, records: NewMemoryRecord[], options: InsertOptions): InsertResult => {
      const result: InsertResult = { inserted: [], duplicates: [] };
      records.forEach((input, index) => {
        // Earlier records of this batch are already in the table, so they are found here too.
        const existing =
          options.deduplicate === false
            ? undefined
            : statements.selectCurrentByHash.get(tenantId, input.memoryHash);
        if (existing) result.duplicates.push({ requestedId: input.id, existing: rowToMemory(existing) });
        else result.inserted.push(insertRecord(tenantId, input, ['records', index]));
      });
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
        storeEmbedding(tenantId, row.pk, next.embedding.model, next.embedding.vector, [
          'next',
          'embedding',
          'vector',
        ]);
      } else statements.deleteEmbedding.run(row.pk);
      vectors.pruneChanges();
      return { ...record, embeddingModel: next.embedding?.model ?? null };
    },
  );

  const history = database.transaction((tenantId: string, id: string, limit: number) => {
    const row = statements.selectById.get(tenantId, id);
    if (!row || limit === 0) return [];
    const prior = statements.selectHistory.all(row.pk, limit - 1).map(rowToMemoryVersion);
    return [toMemoryVersion(rowToMemory(row)), ...prior];
  });

  const supersede = database.transaction((tenantId: string, id: string, replacement: NewMemoryRecord) => {
    const old = statements.selectById.get(tenantId, id);
    if (!old) throw new NotFoundError('Memory', id);
    if (old.valid_to !== null) throw alreadySupersededError(id, old.superseded_by);
    const record = insertRecord(tenantId, { ...replacement, supersedes: id }, ['replacement']);
    statements.closeVersion.run(record.id, Date.parse(record.validFrom), old.pk);
    vectors.pruneChanges();
    return record;
  });

  const setEmbeddings = database.transaction(
    (tenantId: string, model: string, embeddings: { id: string; vector: Float32Array }[]) => {
      embeddings.forEach(({ id, vector }, index) => {
        const path = ['embeddings', index, 'vector'];
        const row = statements.selectPk.get(tenantId, id);
        // A record deleted since `findUnembedded` listed it needs no vector; the vector is still checked.
        if (row) storeEmbedding(tenantId, row.pk, model, vector, path);
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

  // Counts (hybrid search's total) are remembered until a write: this connection's (cleared in
  // `written`) or another's (PRAGMA data_version moves).
  const counts = new CountCache();
  const dataVersion = database.prepare<[], number>('PRAGMA data_version').pluck();
  let countedVersion = dataVersion.get();
  const count = (tenantId: string, filter: MemoryFilter): number => {
    const version = dataVersion.get();
    if (version !== countedVersion) {
      counts.clear();
      countedVersion = version;
    }
    return counts.get(tenantId, filter, () => {
      const where = memoryFilterSql(tenantId, filter);
      return cache.get<{ total: number }>(countSql(where)).get(where.parameters)?.total ?? 0;
    });
  };

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
  const neighbors = database.transaction(
    (tenantId: string, ids: string[], filter: MemoryFilter, window: number): SessionNeighbors[] => {
      const where = memoryFilterSql(tenantId, filter);
      const side = (name: 'before' | 'after', anchor: MemoryRow): string[] =>
        window <= 0
          ? []
          : cache
              .get<{ id: string }>(sessionNeighborsSql(where, name))
              .all({
                ...where.parameters,
                session_id: anchor.session_id as string,
                created_at: anchor.created_at,
                id: anchor.id,
                window,
              })
              .map((row) => row.id);
      return uniqueIds(ids).flatMap((id) => {
        const anchor = statements.selectById.get(tenantId, id);
        if (!anchor || anchor.session_id === null) return [];
        return [
          { id, sessionId: anchor.session_id, before: side('before', anchor), after: side('after', anchor) },
        ];
      });
    },
  );

  /** Runs `work` unless the database is closed, mapping SQLite failures to StoreError. Always async. */
  const guarded = async <T>(work: () => T): Promise<T> => {
    if (!database.open) throw new StoreError('The sqlite store is closed');
    try {
      return work();
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

    memoryHistory: (tenantId, id, limit) => guarded(() => history(tenantId, id, historyLimit(limit))),

    supersede: (tenantId, id, replacement) => written(() => supersede.immediate(tenantId, id, replacement)),

    deleteMemories: (tenantId, ids) => written(() => deleteMemories.immediate(tenantId, ids)),

    countMemories: (tenantId, filter) => guarded(() => count(tenantId, filter)),
    listMemories: (tenantId, filter, page) => guarded(() => list(tenantId, filter, page)),

    searchText: (tenantId, query, filter, limit) =>
      guarded(() => {
        if (limit <= 0) return [];
        // A large tenant is searched in its in-process index once built, unless the filter reads access times.
        const index = filter.lastAccessed === undefined ? texts.index(tenantId) : undefined;
        if (index) {
          const accept = compileStableMemoryFilter(filter);
          return index.search(query, limit, (_id, fields) => accept(fields));
        }
        const match = ftsMatchExpression(query);
        if (match === null) return [];
        const where = memoryFilterSql(tenantId, filter);
        return cache
          .get<{ id: string; score: number }>(searchTextSql(where))
          .all({ ...where.parameters, fts_query: match, limit });
      }),

    searchVector: (tenantId, vector, model, filter, limit) =>
      guarded(() => {
        assertUsableVector(vector, ['vector']);
        const dimensions = dimensionsOf(tenantId, model);
        if (dimensions === undefined) return [];
        assertDimensions(model, dimensions, vector, ['vector']);
        if (limit <= 0) return [];
        // A large tenant is searched in its in-process index once loaded (exactly in SQL until then,
        // as a small one), unless the filter reads access times.
        const collection =
          filter.lastAccessed === undefined ? vectors.collection(tenantId, model, dimensions) : undefined;
        if (collection) return collection.nearest(vector, limit, compileStableMemoryFilter(filter));
        const where = memoryFilterSql(tenantId, filter);
        return cache
          .get<{ id: string; distance: number }>(searchVectorSql(where, distance.sqlFunction))
          .all({ ...where.parameters, query: vectorBlob(vector), model, limit })
          .map((hit) => ({ id: hit.id, distance: Math.min(2, Math.max(0, hit.distance)) }));
      }),

    sessionNeighbors: (tenantId, ids, filter, window) =>
      guarded(() => neighbors(tenantId, ids, filter, window)),

    recordAccess: (tenantId, ids, at) =>
      guarded(() => {
        counts.clearAccessDependent();
        statements.recordAccess.run(Date.parse(isoTimestamp(at)), tenantId, JSON.stringify(uniqueIds(ids)));
      }),

    findUnembedded: (tenantId, model, limit) =>
      guarded(() => statements.findUnembedded.all(tenantId, model, Math.max(0, limit))),

    setEmbeddings: (tenantId, model, embeddings) =>
      written(() => setEmbeddings.immediate(tenantId, model, embeddings)),
  };
}
