import type { Database, Statement } from 'better-sqlite3';
import type { MemoryPage } from '../memory-record-store.js';
import type { FilterSql, SqlParameters } from './memory-filter-sql.js';
import {
  MEMORY_SELECT,
  type MemoryParameters,
  type MemoryRow,
  type MemoryVersionRow,
} from './memory-record-rows.js';

const MEMORY_COLUMNS = `tenant_id, id, namespace, user_id, session_id, agent_id, document_id, source, text,
  memory_type, topics, entities, event_date, created_at, updated_at, last_accessed, access_count, salience,
  confidence, pinned, supersedes, superseded_by, valid_from, valid_to, memory_hash, persisted_at, metadata,
  version, written_by`;

/** The columns a version changes: copied to `memory_versions` and overwritten by an update. */
const VERSION_COLUMNS = `text, memory_type, namespace, user_id, session_id, agent_id, document_id, source, topics,
  entities, event_date, updated_at, salience, confidence, pinned, metadata, memory_hash, valid_from, version,
  written_by`;

/** A list of ids bound as one JSON text parameter. */
const IDS = '(SELECT value FROM json_each(?))';

/** The statements whose SQL never changes, prepared once when the store opens. */
export interface MemoryStatements {
  /** Raw mode (arrays, see `rawRowReader`): it fetches hybrid search's whole candidate pool. */
  selectByIds: Statement<[string, string], unknown[]>;
  selectById: Statement<[string, string], MemoryRow>;
  selectCurrentByHash: Statement<[string, string], MemoryRow>;
  insertMemory: Statement<[MemoryParameters], { pk: number }>;
  closeVersion: Statement<[string, number, number]>;
  /** Copies a memory's current version (pk: the second parameter) to `memory_versions`, closed at the first. */
  archiveVersion: Statement<[number, number]>;
  updateVersion: Statement<[MemoryParameters & { pk: number }]>;
  deleteEmbedding: Statement<[number]>;
  selectHistoryLengths: Statement<[number, number, number], { version: number; chars: number }>;
  selectHistory: Statement<[number, number, number], MemoryVersionRow>;
  deleteByIds: Statement<[string, string]>;
  recordAccess: Statement<[number, number, string, string]>;
  findUnembedded: Statement<[string, string, number], { id: string; text: string }>;
  selectPk: Statement<[string, string], { pk: number }>;
  upsertEmbedding: Statement<[number, string, Buffer]>;
  selectDimensions: Statement<[string, string], { dimensions: number }>;
  insertDimensions: Statement<[string, string, number]>;
  /** The ids among a JSON list that the tenant's memories already use (any version). */
  selectTakenIds: Statement<[string, string], string>;
}

export function prepareMemoryStatements(database: Database): MemoryStatements {
  return {
    selectByIds: database
      .prepare<[string, string], unknown[]>(`${MEMORY_SELECT} WHERE m.tenant_id = ? AND m.id IN ${IDS}`)
      .raw(true),
    selectById: database.prepare(`${MEMORY_SELECT} WHERE m.tenant_id = ? AND m.id = ?`),
    // Uses the partial index on current hashes; the oldest current record is "the" duplicate.
    selectCurrentByHash: database.prepare(
      `${MEMORY_SELECT} WHERE m.tenant_id = ? AND m.memory_hash = ? AND m.valid_to IS NULL ORDER BY m.pk LIMIT 1`,
    ),
    insertMemory: database.prepare(
      `INSERT INTO memories (${MEMORY_COLUMNS}) VALUES (${MEMORY_COLUMNS.replace(/(\w+)/g, '@$1')}) RETURNING pk`,
    ),
    closeVersion: database.prepare('UPDATE memories SET superseded_by = ?, valid_to = ? WHERE pk = ?'),
    archiveVersion: database.prepare(
      `INSERT INTO memory_versions (memory_pk, ${VERSION_COLUMNS}, valid_to)
      SELECT pk, ${VERSION_COLUMNS}, ? FROM memories WHERE pk = ?`,
    ),
    updateVersion: database.prepare(
      `UPDATE memories SET ${VERSION_COLUMNS.split(',')
        .map((column) => `${column.trim()} = @${column.trim()}`)
        .join(', ')} WHERE pk = @pk`,
    ),
    deleteEmbedding: database.prepare('DELETE FROM memory_embeddings WHERE memory_pk = ?'),
    // Prior versions below a version, newest first: their lengths for the page's cut, then the page
    // (versions within [low, high)) with the memory's id.
    selectHistoryLengths: database.prepare(
      `SELECT version, length(text) AS chars FROM memory_versions
      WHERE memory_pk = ? AND version < ? ORDER BY version DESC LIMIT ?`,
    ),
    selectHistory: database.prepare(
      `SELECT m.id, v.* FROM memory_versions v JOIN memories m ON m.pk = v.memory_pk
      WHERE v.memory_pk = ? AND v.version >= ? AND v.version < ? ORDER BY v.version DESC`,
    ),
    // Triggers remove the FTS entries; the foreign key cascades to the embeddings.
    deleteByIds: database.prepare(`DELETE FROM memories WHERE tenant_id = ? AND id IN ${IDS}`),
    recordAccess: database.prepare(
      `UPDATE memories SET access_count = access_count + ?, last_accessed = ? WHERE tenant_id = ? AND id IN ${IDS}`,
    ),
    // Walks memories_by_created in order: oldest current records first.
    findUnembedded: database.prepare(
      `SELECT m.id, m.text FROM memories m
      WHERE m.tenant_id = ? AND m.valid_to IS NULL
        AND NOT EXISTS (SELECT 1 FROM memory_embeddings e WHERE e.memory_pk = m.pk AND e.model = ?)
      ORDER BY m.created_at, m.id LIMIT ?`,
    ),
    selectPk: database.prepare('SELECT pk FROM memories WHERE tenant_id = ? AND id = ?'),
    upsertEmbedding: database.prepare(
      `INSERT INTO memory_embeddings (memory_pk, model, vector) VALUES (?, ?, ?)
      ON CONFLICT (memory_pk) DO UPDATE SET model = excluded.model, vector = excluded.vector`,
    ),
    selectDimensions: database.prepare(
      'SELECT dimensions FROM memory_vector_spaces WHERE tenant_id = ? AND model = ?',
    ),
    insertDimensions: database.prepare(
      'INSERT OR IGNORE INTO memory_vector_spaces (tenant_id, model, dimensions) VALUES (?, ?, ?)',
    ),
    selectTakenIds: database
      .prepare<[string, string], string>(`SELECT id FROM memories WHERE tenant_id = ? AND id IN ${IDS}`)
      .pluck(),
  };
}

/** `memories` columns in the order of `insertMemoriesSql`'s placeholders. */
export const MEMORY_COLUMN_NAMES = MEMORY_COLUMNS.split(',').map((column) =>
  column.trim(),
) as (keyof MemoryParameters)[];

/**
 * Most rows one multi-row insert writes. Each statement of a transaction that has written the FTS5
 * index makes FTS5 flush its pending terms to a new segment (its savepoint), so a row per statement
 * flushed every record of a batch on its own; 100 rows bind 2,900 parameters, far below SQLite's limit.
 */
export const INSERT_CHUNK = 100;

/** Inserts `rows` memories (positional parameters, `MEMORY_COLUMN_NAMES` per row), returning pk and id. */
export const insertMemoriesSql = (rows: number): string =>
  `INSERT INTO memories (${MEMORY_COLUMNS}) VALUES ${Array.from(
    { length: rows },
    () => `(${MEMORY_COLUMN_NAMES.map(() => '?').join(', ')})`,
  ).join(', ')} RETURNING pk, id`;

/** Stores `rows` embeddings (memory pk, model, vector per row), replacing any a memory had. */
export const upsertEmbeddingsSql = (rows: number): string =>
  `INSERT INTO memory_embeddings (memory_pk, model, vector) VALUES ${Array.from(
    { length: rows },
    () => '(?, ?, ?)',
  ).join(', ')}
  ON CONFLICT (memory_pk) DO UPDATE SET model = excluded.model, vector = excluded.vector`;

const ORDER_BY: Record<Required<MemoryPage>['order'], string> = {
  created_desc: 'm.created_at DESC, m.id DESC',
  created_asc: 'm.created_at ASC, m.id ASC',
  last_accessed_desc: 'm.last_accessed DESC, m.id DESC',
};

/** A filtered page of records: the filter's parameters plus `limit` and `offset`. */
export const listSql = (filter: FilterSql, order: Required<MemoryPage>['order']): string =>
  `${MEMORY_SELECT} WHERE ${filter.where} ORDER BY ${ORDER_BY[order]} LIMIT @limit OFFSET @offset`;

export const countSql = (filter: FilterSql): string =>
  `SELECT count(*) AS total FROM memories m WHERE ${filter.where}`;

/**
 * BM25 over the filtered records (`@fts_query`, `@limit`). FTS5's bm25() is lower-is-better, so it
 * is negated; the filter joins before ORDER BY and LIMIT, so it never shrinks a truncated list.
 */
export const searchTextSql = (filter: FilterSql): string =>
  `SELECT m.id AS id, -bm25(memories_fts) AS score, m.session_id AS session_id, m.entities AS entities
  FROM memories_fts JOIN memories m ON m.pk = memories_fts.rowid
  WHERE memories_fts MATCH @fts_query AND ${filter.where}
  ORDER BY score DESC, m.id LIMIT @limit`;

/**
 * Exact nearest neighbours over the filtered records with a `@model` embedding (`@query` as a
 * float32 BLOB, `@limit`). `distanceFunction` is sqlite-vec's `vec_distance_cosine` or the
 * JavaScript fallback; both yield NULL for a zero vector, which counts as distance 1. SQLite keeps
 * only the best `limit` rows while sorting, so nothing per row reaches JavaScript; the caller clamps
 * the returned distances to [0, 2] (float rounding), which cannot change their order. The hits'
 * traits (session, entities) are read for those rows only, so the scan keeps its covering index.
 */
export const searchVectorSql = (filter: FilterSql, distanceFunction: string): string =>
  `SELECT h.id AS id, h.distance AS distance, m.session_id AS session_id, m.entities AS entities
  FROM (SELECT m.pk AS pk, m.id AS id, coalesce(${distanceFunction}(e.vector, @query), 1.0) AS distance
    FROM memories m JOIN memory_embeddings e ON e.memory_pk = m.pk
    WHERE e.model = @model AND ${filter.where}
    ORDER BY distance, m.id LIMIT @limit) AS h
  JOIN memories m ON m.pk = h.pk
  ORDER BY h.distance, h.id`;

/**
 * The ids of up to `@window` filtered records before (`side` = 'before', nearest first) or after a
 * place in a session (`@session_id`, `@created_at`, `@id`), walking `memories_by_session`.
 */
export const sessionNeighborsSql = (filter: FilterSql, side: 'before' | 'after'): string =>
  `SELECT m.id AS id FROM memories m INDEXED BY memories_by_session
  WHERE m.session_id = @session_id
    AND (m.created_at, m.id) ${side === 'before' ? '<' : '>'} (@created_at, @id)
    AND ${filter.where}
  ORDER BY m.created_at ${side === 'before' ? 'DESC' : 'ASC'}, m.id ${side === 'before' ? 'DESC' : 'ASC'}
  LIMIT @window`;

/** Prepared statements for dynamic SQL, by text: a filter's shape, not its values, decides the text. */
export class StatementCache {
  private readonly statements = new Map<string, Statement<[SqlParameters], unknown>>();

  constructor(
    private readonly database: Database,
    private readonly capacity = 256,
  ) {}

  get<Row>(sql: string): Statement<[SqlParameters], Row> {
    let statement = this.statements.get(sql);
    if (statement) {
      // Re-inserting keeps the map in least-recently-used order.
      this.statements.delete(sql);
    } else {
      statement = this.database.prepare<[SqlParameters], unknown>(sql);
      if (this.statements.size >= this.capacity) {
        const oldest = this.statements.keys().next();
        if (!oldest.done) this.statements.delete(oldest.value);
      }
    }
    this.statements.set(sql, statement);
    return statement as Statement<[SqlParameters], Row>;
  }
}
