import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { compileStableMemoryFilter } from '../memory-filter.js';
import { type HitTraits, hitTraits, type TextHit, type VectorHit } from '../memory-record-store.js';
import { assertDimensions, assertUsableVector } from '../memory-rules.js';
import { searchTextIndex } from '../search-text-index.js';
import { ftsMatchExpression, memoryFilterSql } from './memory-filter-sql.js';
import { parseList, vectorBlob } from './memory-record-rows.js';
import { type StatementCache, searchTextSql, searchVectorSql } from './memory-record-statements.js';
import type { SqliteTextCache } from './sqlite-text-cache.js';
import type { SqliteVectorCache } from './sqlite-vector-cache.js';
import type { VectorDistance } from './vector-distance.js';

/** The columns of a search statement that give a hit's traits. */
interface TraitColumns {
  session_id: string | null;
  entities: string;
}

const traitsOf = (row: TraitColumns): HitTraits => ({
  sessionId: row.session_id,
  entities: parseList(row.entities),
});

export interface SqliteMemorySearchOptions {
  /** The driver's cache of statements whose text depends on the filter's shape. */
  cache: StatementCache;
  distance: VectorDistance;
  vectors: SqliteVectorCache;
  texts: SqliteTextCache;
  /** The dimensions a tenant's vectors of `model` have (undefined: none stored). */
  dimensionsOf: (tenantId: string, model: string) => number | undefined;
}

/**
 * `searchText` and `searchVector` of the SQLite driver: a large tenant is searched in its
 * in-process indexes once they are built (`sqlite-text-cache.ts`, `sqlite-vector-cache.ts`), a
 * small one, and filters on access times, in SQL. Every hit carries its traits.
 */
export function createSqliteMemorySearch(options: SqliteMemorySearchOptions) {
  const { cache, distance, vectors, texts, dimensionsOf } = options;

  const text = (tenantId: string, query: string, filter: MemoryFilter, limit: number): TextHit[] => {
    if (limit <= 0) return [];
    // A large tenant is searched in its in-process index once built, unless the filter reads access times.
    const mirror = filter.lastAccessed === undefined ? texts.index(tenantId) : undefined;
    if (mirror) {
      const accept = compileStableMemoryFilter(filter);
      return searchTextIndex(mirror.index, mirror.partitions, accept, query, filter, limit);
    }
    const match = ftsMatchExpression(query);
    if (match === null) return [];
    const where = memoryFilterSql(tenantId, filter);
    return cache
      .get<{ id: string; score: number } & TraitColumns>(searchTextSql(where))
      .all({ ...where.parameters, fts_query: match, limit })
      .map((hit) => ({ id: hit.id, score: hit.score, traits: traitsOf(hit) }));
  };

  const vector = (
    tenantId: string,
    vector: Float32Array,
    model: string,
    filter: MemoryFilter,
    limit: number,
  ): VectorHit[] => {
    assertUsableVector(vector, ['vector']);
    const dimensions = dimensionsOf(tenantId, model);
    if (dimensions === undefined) return [];
    assertDimensions(model, dimensions, vector, ['vector']);
    if (limit <= 0) return [];
    // A large tenant is searched in its in-process index once loaded (exactly in SQL until then,
    // as a small one), unless the filter reads access times.
    const collection =
      filter.lastAccessed === undefined ? vectors.collection(tenantId, model, dimensions) : undefined;
    if (collection) {
      return collection
        .nearestRows(vector, limit, compileStableMemoryFilter(filter), filter)
        .map(({ row, distance }) => ({ id: row.id, distance, traits: hitTraits(row) }));
    }
    const where = memoryFilterSql(tenantId, filter);
    return cache
      .get<{ id: string; distance: number } & TraitColumns>(searchVectorSql(where, distance.sqlFunction))
      .all({ ...where.parameters, query: vectorBlob(vector), model, limit })
      .map((hit) => ({
        id: hit.id,
        distance: Math.min(2, Math.max(0, hit.distance)),
        traits: traitsOf(hit),
      }));
  };

  return { text, vector };
}
