import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { compileStableMemoryFilter } from '../memory-filter.js';
import type { TextHit } from '../memory-record-store.js';
import { searchTextIndex } from '../search-text-index.js';
import { bm25PruningPlan } from './bm25-pruning-plan.js';
import { bm25Sql } from './bm25-sql.js';
import { memoryFilterSql, queryWords, SqlParameters, tsqueryText } from './memory-filter-sql.js';
import type { PostgresDatabase } from './postgres-database.js';
import { createPostgresTextCache } from './postgres-text-cache.js';
import { type LearnedStatistics, TextStatisticsCache } from './text-statistics-cache.js';

/**
 * `searchText` of the PostgreSQL driver: the tenant's in-process BM25 index, caught up with the
 * change log in the search's one statement (`postgres-text-cache.ts`); while that index is built,
 * for filters on `lastAccessed`, and with `inProcess` false, BM25 in one statement (`bm25Sql`) with
 * the statistics this process has cached for the tenant (validated by the memory revision in the
 * statement) and, when they allow it, a pruning plan that the statement checks (`bm25PruningPlan`).
 */
export function createPostgresTextSearch(
  database: PostgresDatabase,
  inProcess = true,
  inProcessVectors = true,
) {
  const textStatistics = new TextStatisticsCache();
  const cache = inProcess ? createPostgresTextCache(database, { vectors: inProcessVectors }) : undefined;
  let prunedSearches = 0;

  const searchText = async (
    tenantId: string,
    query: string,
    filter: MemoryFilter,
    limit: number,
  ): Promise<TextHit[]> => {
    if (limit <= 0) return [];
    const mirror = cache && filter.lastAccessed === undefined ? await cache.index(tenantId) : undefined;
    if (mirror) {
      const accept = compileStableMemoryFilter(filter);
      return searchTextIndex(mirror.index, mirror.partitions, accept, query, filter, limit);
    }
    const terms = queryWords(query);
    const text = tsqueryText(terms);
    if (limit <= 0 || text === null) return [];
    const known = textStatistics.known(tenantId, terms);
    const plan = bm25PruningPlan(known, limit);
    const parameters = new SqlParameters();
    const placeholders = {
      query: parameters.add(text),
      wordsText: parameters.add(terms.join(' ')),
      tenant: parameters.add(tenantId),
      limit: parameters.add(limit),
      revision: parameters.add(known.revision, '::bigint'),
      n: parameters.add(known.n, '::float8'),
      avgdl: parameters.add(known.avgdl, '::float8'),
      lexemes: parameters.add(known.lexemes, '::text[]'),
      dfs: parameters.add(known.dfs, '::float8[]'),
      impacts: parameters.add(known.impacts, '::float8[]'),
      unstemmed: parameters.add(known.unstemmed, '::text[]'),
      ...(plan && {
        pruning: {
          lexemes: parameters.add(plan.lexemes, '::text[]'),
          bounds: parameters.add(plan.bounds, '::float8[]'),
          threshold: parameters.add(plan.threshold, '::float8'),
          query: parameters.add(plan.query),
        },
      }),
    };
    const where = memoryFilterSql(tenantId, filter, parameters);
    const rows = await database.query<
      LearnedStatistics & {
        id: string | null;
        score: number;
        session_id: string | null;
        entities: string[] | null;
        pruned: boolean;
      }
    >(bm25Sql(where, placeholders), parameters.values);
    if (rows[0]) textStatistics.learn(tenantId, rows[0]);
    if (rows[0]?.pruned) prunedSearches += 1;
    return rows.flatMap((row) =>
      row.id === null
        ? []
        : [
            {
              id: row.id,
              score: row.score,
              traits: { sessionId: row.session_id, entities: row.entities ?? [] },
            },
          ],
    );
  };

  return {
    searchText,
    /**
     * The tenant's in-process mirror (text and vectors), current with every commit before the
     * call; undefined while it is built or caught up, or with in-process text off.
     */
    mirror: (tenantId: string) => cache?.index(tenantId) ?? Promise.resolve(undefined),
    prunedTextSearches: () => prunedSearches,
    pruneChanges: (retentionMs?: number) => cache?.pruneChanges(retentionMs) ?? Promise.resolve(),
    settled: () => cache?.settled() ?? Promise.resolve(),
    stop: () => cache?.stop() ?? Promise.resolve(),
  };
}
