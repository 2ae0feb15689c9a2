import type { Database, Statement } from 'better-sqlite3';
import {
  type ChangeLogStatements,
  type FilterRow,
  prepareChangeLogStatements,
} from './vector-cache-statements.js';

/** A memory's text with the columns a filter reads (but `last_accessed`), as the text cache loads it. */
export interface TextRow extends FilterRow {
  text: string;
}

const TEXT_ROW_SELECT = `SELECT m.pk, m.tenant_id, m.id, m.text, m.valid_to, m.namespace, m.user_id, m.session_id,
  m.agent_id, m.document_id, m.memory_type, m.topics, m.entities, m.event_date, m.created_at, m.pinned
  FROM memories m`;

/** What the text cache asks SQLite. */
export interface TextCacheStatements extends ChangeLogStatements {
  /** Text rows of a tenant among a JSON list of memory pks. */
  selectByPks: Statement<[string, string], TextRow>;
  /** A tenant's text rows after an id, in id order (its unique index: no sort), up to a count. */
  selectChunk: Statement<[string, string, number], TextRow>;
  /** A tenant's memories (all versions), counted up to a cap. */
}

export function prepareTextCacheStatements(database: Database): TextCacheStatements {
  return {
    ...prepareChangeLogStatements(database),
    selectByPks: database.prepare(
      `${TEXT_ROW_SELECT} WHERE m.tenant_id = ? AND m.pk IN (SELECT value FROM json_each(?))`,
    ),
    selectChunk: database.prepare(
      `${TEXT_ROW_SELECT} WHERE m.tenant_id = ? AND m.id > ? ORDER BY m.tenant_id, m.id LIMIT ?`,
    ),
  };
}
