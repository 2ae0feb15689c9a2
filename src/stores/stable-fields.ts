import type { MemoryType } from '../core/schemas/memory-record.js';
import type { StableMemoryFields } from './memory-filter.js';
import { sharedString } from './shared-string.js';

/** The columns a filter reads (but `last_accessed`), decoded: lists as arrays, epoch milliseconds. */
export interface FilterColumns {
  id: string;
  valid_to: number | null;
  namespace: string | null;
  user_id: string | null;
  session_id: string | null;
  agent_id: string | null;
  document_id: string | null;
  memory_type: string;
  topics: string[];
  entities: string[];
  event_date: number | null;
  created_at: number;
  pinned: boolean;
}

/** Most rows have no topics or entities: they share one empty list, which nothing mutates. */
const NONE: string[] = [];
const iso = (epoch: number): string => new Date(epoch).toISOString();

/**
 * A row's filter columns in the record form the reference predicate takes, as the in-process
 * caches of the SQL drivers hold them (values that repeat across rows shared: `sharedString`).
 */
export function toStableFields(row: FilterColumns): StableMemoryFields {
  return {
    id: row.id,
    validTo: row.valid_to === null ? null : iso(row.valid_to),
    namespace: sharedString(row.namespace),
    userId: sharedString(row.user_id),
    sessionId: row.session_id,
    agentId: sharedString(row.agent_id),
    documentId: row.document_id,
    memoryType: sharedString(row.memory_type) as MemoryType,
    topics: row.topics.length === 0 ? NONE : row.topics,
    entities: row.entities.length === 0 ? NONE : row.entities,
    eventDate: row.event_date === null ? null : iso(row.event_date),
    createdAt: iso(row.created_at),
    pinned: row.pinned,
  };
}
