import type { Database, Statement } from 'better-sqlite3';
import type { MemoryType } from '../../core/schemas/memory-record.js';
import type { StableMemoryFields } from '../memory-filter.js';
import { sharedString } from '../shared-string.js';

/** The columns a filter reads (but `last_accessed`), as the in-process caches load them. */
export interface FilterRow {
  pk: number;
  tenant_id: string;
  id: string;
  valid_to: number | null;
  namespace: string | null;
  user_id: string | null;
  session_id: string | null;
  agent_id: string | null;
  document_id: string | null;
  memory_type: string;
  topics: string;
  entities: string;
  event_date: number | null;
  created_at: number;
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

/** Most rows have no topics or entities: they share one empty list, which nothing mutates. */
const NONE: string[] = [];
const list = (json: string): string[] => (json === '[]' ? NONE : (JSON.parse(json) as string[]));
const iso = (epoch: number): string => new Date(epoch).toISOString();

/** The fields of a row a filter reads, in the record form the reference predicate takes. */
export function toStableFields(row: FilterRow): StableMemoryFields {
  return {
    id: row.id,
    validTo: row.valid_to === null ? null : iso(row.valid_to),
    namespace: sharedString(row.namespace),
    userId: sharedString(row.user_id),
    sessionId: row.session_id,
    agentId: sharedString(row.agent_id),
    documentId: row.document_id,
    memoryType: sharedString(row.memory_type) as MemoryType,
    topics: list(row.topics),
    entities: list(row.entities),
    eventDate: row.event_date === null ? null : iso(row.event_date),
    createdAt: iso(row.created_at),
    pinned: row.pinned === 1,
  };
}
