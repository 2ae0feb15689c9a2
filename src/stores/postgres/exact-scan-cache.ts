import { LruMap } from '../../core/lru-map.js';
import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { unitVector } from '../../core/vectors/dot-product.js';
import { allocatePacked, nearestPacked, type PackedVectors } from '../../core/vectors/packed-vectors.js';
import { memoryFilterSql, SqlParameters } from './memory-filter-sql.js';
import type { Queryable } from './postgres-database.js';
import { canonicalJson } from './postgres-memory-counts.js';

/** Vector floats kept for exact scans in one process, at most (the least recently used go first). */
const CACHED_FLOATS = 8_000_000;
/**
 * Candidates of more floats than this (5,000 vectors of 100 dimensions; 325 of 1,536) are scanned in
 * SQL: their vectors arrive as text, and parsing millions of floats would hold the request longer
 * than the scan it saves.
 */
export const LOADED_FLOATS = 500_000;
/** Filters whose sightings are remembered, for the second-sighting rule. */
const SIGHTINGS = 1_024;

/** A candidate of an exact scan: what a vector search returns of it. */
export interface ScanRow {
  id: string;
  session_id: string | null;
  entities: string[];
}

interface Entry {
  revision: number;
  rows: ScanRow[];
  packed: PackedVectors;
}

interface LoadedRow extends ScanRow {
  revision: number;
  vector: number[] | null;
}

/**
 * The candidates of exact vector searches (a filter matching at most 5,000 memories with vectors
 * of a model: a user's episodes, an agent's knowledge, a small tenant's memories), kept in process
 * with their vectors packed, and valid only at the tenant's memory revision they were read at.
 *
 * Every search reads the revision first (with its candidate count, `createVectorCandidateCounts`),
 * so a write by any server, which moves the revision in its own transaction, makes the next search
 * read the candidates again; the rows and the revision they are kept under come from one
 * statement, so one snapshot. A filter is loaded on its second search at the same revision (a
 * filter seen once, or a tenant written between every search, never costs a load). Distances are
 * computed in JavaScript, in double precision over the float4 values pgvector holds; filters on
 * `lastAccessed` are never kept (access times move without the revision).
 */
export function createExactScanCache(database: Queryable, loadedFloats = LOADED_FLOATS) {
  const entries = new Map<string, Entry>();
  const sightings = new LruMap<string, number>(SIGHTINGS);
  let floats = 0;

  const forget = (key: string): void => {
    const entry = entries.get(key);
    if (!entry) return;
    floats -= entry.packed.vectors.length;
    entries.delete(key);
  };

  const keep = (key: string, entry: Entry): void => {
    forget(key);
    if (entry.packed.vectors.length > CACHED_FLOATS) return;
    entries.set(key, entry);
    floats += entry.packed.vectors.length;
    for (const oldest of entries.keys()) {
      if (floats <= CACHED_FLOATS) break;
      forget(oldest);
    }
  };

  /** The filter's candidates with their vectors, and the revision they are current at: one statement. */
  const load = async (tenantId: string, model: string, filter: MemoryFilter, dimensions: number) => {
    const parameters = new SqlParameters();
    const tenant = parameters.add(tenantId);
    const where = memoryFilterSql(tenantId, filter, parameters);
    const rows = await database.query<LoadedRow>(
      `SELECT s.revision, c.id, c.session_id, c.entities, c.vector
      FROM (SELECT coalesce((SELECT revision FROM memory_revisions WHERE tenant_id = ${tenant}), 0) AS revision) AS s
      LEFT JOIN LATERAL (SELECT m.id, m.session_id, m.entities, e.vector
        FROM memories m JOIN memory_embeddings e ON e.memory_pk = m.pk
        WHERE e.model = ${parameters.add(model)} AND ${where}) AS c ON true`,
      parameters.values,
    );
    const found = rows.filter((row) => row.vector !== null);
    const keys = Int32Array.from(found, (_row, index) => index);
    const packed = allocatePacked(keys, dimensions);
    found.forEach((row, index) => {
      packed.vectors.set(unitVector(Float32Array.from(row.vector as number[])), index * dimensions);
    });
    return {
      revision: Number(rows[0]?.revision ?? 0),
      rows: found.map(({ id, session_id, entities }) => ({ id, session_id, entities })),
      packed,
    };
  };

  /**
   * The `limit` nearest of the filter's `candidates` (their count) to `vector` (non-zero) with
   * their cosine distances, when the tenant is at `revision` and the filter was searched before
   * at it; otherwise null, and the caller scans in SQL.
   */
  return async (
    tenantId: string,
    model: string,
    filter: MemoryFilter,
    revision: number,
    candidates: number,
    vector: Float32Array,
    limit: number,
  ): Promise<(ScanRow & { distance: number })[] | null> => {
    if (filter.lastAccessed !== undefined || vector.length === 0) return null;
    if (candidates * vector.length > loadedFloats) return null;
    const key = canonicalJson([tenantId, model, filter]);
    let entry = entries.get(key);
    if (entry?.revision !== revision) {
      if (sightings.get(key) !== revision) {
        sightings.set(key, revision);
        return null;
      }
      entry = await load(tenantId, model, filter, vector.length);
      keep(key, entry);
      // Written meanwhile: the rows are newer than the revision this search was asked at.
      if (entry.revision !== revision) return null;
    } else {
      // Most recently used last.
      entries.delete(key);
      entries.set(key, entry);
    }
    const { rows } = entry;
    const neighbours = nearestPacked(entry.packed, unitVector(vector), limit, (left, right) => {
      const a = (rows[left] as ScanRow).id;
      const b = (rows[right] as ScanRow).id;
      return a < b ? -1 : a > b ? 1 : 0;
    });
    return neighbours.map(({ key: index, distance }) => ({ ...(rows[index] as ScanRow), distance }));
  };
}
