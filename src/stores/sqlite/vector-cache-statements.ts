import type { Database, Statement } from 'better-sqlite3';
import type { StableMemoryFields } from '../memory-filter.js';
import { type FilterColumns, toStableFields } from '../stable-fields.js';

/**
 * The columns a filter reads (but `last_accessed`), as the in-process caches load them from
 * SQLite: lists as JSON text, `pinned` as 0 or 1.
 */
export interface FilterRow extends Omit<FilterColumns, 'topics' | 'entities' | 'pinned'> {
  pk: number;
  tenant_id: string;
  topics: string;
  entities: string;
  pinned: number;
}

/** A memory's vector with the columns a filter reads, as the vector cache loads it. */
export interface VectorRow extends FilterRow {
  model: string;
  vector: Buffer;
}

const VECTOR_ROW_SELECT = `SELECT m.pk, m.tenant_id, e.model, e.vector, m.id, m.valid_to, m.namespace, m.user_id,
  m.session_id, m.agent_id, m.document_id, m.memory_type, m.topics, m.entities, m.event_date, m.created_at, m.pinned
  FROM memories m JOIN memory_embeddings e ON e.memory_pk = m.pk`;

/** What the vector cache asks SQLite. */
/** The change-log reads both in-process caches (vectors, text) follow other connections with. */
export interface ChangeLogStatements {
  /** Changes when another connection commits (never for this one's own commits). */
  dataVersion: Statement<[], number>;
  changeBounds: Statement<[], { oldest: number | null; latest: number | null }>;
  /** Memories changed after a change-log position, each once. */
  changedSince: Statement<[number], number>;
}

export function prepareChangeLogStatements(database: Database): ChangeLogStatements {
  return {
    dataVersion: database.prepare<[], number>('PRAGMA data_version').pluck(),
    changeBounds: database.prepare(
      'SELECT min(seq) AS oldest, max(seq) AS latest FROM memory_vector_changes',
    ),
    changedSince: database
      .prepare<[number], number>('SELECT DISTINCT memory_pk FROM memory_vector_changes WHERE seq > ?')
      .pluck(),
  };
}

export interface VectorCacheStatements extends ChangeLogStatements {
  /** Vector rows of a JSON list of memory pks (any tenant or model). */
  selectByPks: Statement<[string], VectorRow>;
  /**
   * A tenant's vector rows of a model after a memory id, in id order (the unique index on
   * (tenant_id, id): a range seek, no sort), up to a count.
   */
  selectChunk: Statement<[string, string, string, number], VectorRow>;
  /** A tenant's memories (all versions), counted up to a cap. */
  /** Drops change-log entries older than the newest N. */
  pruneChanges: Statement<[number]>;
}

export function prepareVectorCacheStatements(database: Database): VectorCacheStatements {
  return {
    ...prepareChangeLogStatements(database),
    selectByPks: database.prepare(`${VECTOR_ROW_SELECT} WHERE m.pk IN (SELECT value FROM json_each(?))`),
    selectChunk: database.prepare(
      `${VECTOR_ROW_SELECT} WHERE m.tenant_id = ? AND e.model = ? AND m.id > ? ORDER BY m.tenant_id, m.id LIMIT ?`,
    ),
    pruneChanges: database.prepare(
      'DELETE FROM memory_vector_changes WHERE seq <= (SELECT max(seq) FROM memory_vector_changes) - ?',
    ),
  };
}

/** SQLite's lists (JSON text) and pinned flag (0/1), decoded for `toStableFields`. */
const list = (json: string): string[] => (json === '[]' ? [] : (JSON.parse(json) as string[]));

/** The fields of a row a filter reads, in the record form the reference predicate takes. */
export function sqliteStableFields(row: FilterRow): StableMemoryFields {
  return toStableFields({
    ...row,
    topics: list(row.topics),
    entities: list(row.entities),
    pinned: row.pinned === 1,
  });
}
