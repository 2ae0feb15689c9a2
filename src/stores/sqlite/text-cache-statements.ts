import type { Database, Statement } from 'better-sqlite3';
import type { FilterRow } from './vector-cache-statements.js';

/** A memory's text with the columns a filter reads (but `last_accessed`), as the text cache loads it. */
export interface TextRow extends FilterRow {
  text: string;
}

const TEXT_ROW_SELECT = `SELECT m.pk, m.tenant_id, m.id, m.text, m.valid_to, m.namespace, m.user_id, m.session_id,
  m.agent_id, m.document_id, m.memory_type, m.topics, m.entities, m.event_date, m.created_at, m.pinned
  FROM memories m`;

/** What the text cache asks SQLite. */
export interface TextCacheStatements {
  /** Changes when another connection commits (never for this one's own commits). */
  dataVersion: Statement<[], number>;
  changeBounds: Statement<[], { oldest: number | null; latest: number | null }>;
  /** Memories changed after a change-log position, each once. */
  changedSince: Statement<[number], number>;
  /** Text rows of a tenant among a JSON list of memory pks. */
  selectByPks: Statement<[string, string], TextRow>;
  /** A tenant's text rows after an id, in id order (its unique index: no sort), up to a count. */
  selectChunk: Statement<[string, string, number], TextRow>;
  /** A tenant's memories (all versions), counted up to a cap. */
  countTenant: Statement<[string, number], number>;
}

export function prepareTextCacheStatements(database: Database): TextCacheStatements {
  return {
    dataVersion: database.prepare<[], number>('PRAGMA data_version').pluck(),
    changeBounds: database.prepare(
      'SELECT min(seq) AS oldest, max(seq) AS latest FROM memory_vector_changes',
    ),
    changedSince: database
      .prepare<[number], number>('SELECT DISTINCT memory_pk FROM memory_vector_changes WHERE seq > ?')
      .pluck(),
    selectByPks: database.prepare(
      `${TEXT_ROW_SELECT} WHERE m.tenant_id = ? AND m.pk IN (SELECT value FROM json_each(?))`,
    ),
    selectChunk: database.prepare(
      `${TEXT_ROW_SELECT} WHERE m.tenant_id = ? AND m.id > ? ORDER BY m.tenant_id, m.id LIMIT ?`,
    ),
    countTenant: database
      .prepare<[string, number], number>(
        'SELECT count(*) FROM (SELECT 1 FROM memories WHERE tenant_id = ? LIMIT ?)',
      )
      .pluck(),
  };
}
