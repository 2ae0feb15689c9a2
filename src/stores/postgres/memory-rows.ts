import type { JsonValue } from '../../core/schemas/json.js';
import type {
  MemoryRecord,
  MemoryType,
  MemoryVersion,
  MemoryWriter,
} from '../../core/schemas/memory-record.js';

/** A `memories` row with its embedding's model, as node-postgres returns it. */
export interface MemoryRow {
  pk: number;
  tenant_id: string;
  id: string;
  namespace: string | null;
  user_id: string | null;
  session_id: string | null;
  agent_id: string | null;
  document_id: string | null;
  source: string | null;
  text: string;
  memory_type: string;
  topics: string[];
  entities: string[];
  event_date: number | null;
  created_at: number;
  updated_at: number;
  last_accessed: number;
  access_count: number;
  salience: number;
  confidence: number;
  pinned: boolean;
  supersedes: string | null;
  superseded_by: string | null;
  valid_from: number;
  valid_to: number | null;
  memory_hash: string;
  persisted_at: number;
  metadata: Record<string, JsonValue>;
  version: number;
  written_by: string;
  embedding_model: string | null;
}

/** The stored columns, in insert order (all but pk and the generated text_search). */
export const MEMORY_COLUMNS = [
  'tenant_id',
  'id',
  'namespace',
  'user_id',
  'session_id',
  'agent_id',
  'document_id',
  'source',
  'text',
  'memory_type',
  'topics',
  'entities',
  'event_date',
  'created_at',
  'updated_at',
  'last_accessed',
  'access_count',
  'salience',
  'confidence',
  'pinned',
  'supersedes',
  'superseded_by',
  'valid_from',
  'valid_to',
  'memory_hash',
  'persisted_at',
  'metadata',
  'version',
  'written_by',
] as const;

/** PostgreSQL array types of MEMORY_COLUMNS, for a batch insert from `unnest` of one array per column. */
const COLUMN_TYPES: Record<(typeof MEMORY_COLUMNS)[number], string> = {
  tenant_id: 'text',
  id: 'text',
  namespace: 'text',
  user_id: 'text',
  session_id: 'text',
  agent_id: 'text',
  document_id: 'text',
  source: 'text',
  text: 'text',
  memory_type: 'text',
  // Lists travel as JSON text: PostgreSQL has no array of arrays of varying length.
  topics: 'text',
  entities: 'text',
  event_date: 'bigint',
  created_at: 'bigint',
  updated_at: 'bigint',
  last_accessed: 'bigint',
  access_count: 'bigint',
  salience: 'float8',
  confidence: 'float8',
  pinned: 'boolean',
  supersedes: 'text',
  superseded_by: 'text',
  valid_from: 'bigint',
  valid_to: 'bigint',
  memory_hash: 'text',
  persisted_at: 'bigint',
  metadata: 'text',
  version: 'bigint',
  written_by: 'text',
};

const JSON_LISTS = new Set(['topics', 'entities']);

/** `INSERT INTO memories` of a batch (one array parameter per column); returns pk and id per row. */
export const INSERT_MEMORIES = `INSERT INTO memories (${MEMORY_COLUMNS.join(', ')})
  SELECT ${MEMORY_COLUMNS.map((column) =>
    JSON_LISTS.has(column)
      ? `ARRAY(SELECT jsonb_array_elements_text(${column}::jsonb))`
      : column === 'metadata'
        ? 'metadata::jsonb'
        : column,
  ).join(', ')}
  FROM unnest(${MEMORY_COLUMNS.map((column, index) => `$${index + 1}::${COLUMN_TYPES[column]}[]`).join(', ')})
    AS r(${MEMORY_COLUMNS.join(', ')})
  RETURNING pk, id`;

/** The columns a select returns, with the embedding's model, for `FROM memories m LEFT JOIN memory_embeddings e`. */
export const MEMORY_SELECT = `SELECT ${MEMORY_COLUMNS.map((column) => `m.${column}`).join(', ')}, m.pk,
    e.model AS embedding_model
  FROM memories m LEFT JOIN memory_embeddings e ON e.memory_pk = m.pk`;

const epochMs = (iso: string): number => Date.parse(iso);
const iso = (epoch: number): string => new Date(epoch).toISOString();

/** One value per column of MEMORY_COLUMNS for a stored record (timestamps already normalized). */
export function memoryValues(record: MemoryRecord): unknown[] {
  return [
    record.tenantId,
    record.id,
    record.namespace,
    record.userId,
    record.sessionId,
    record.agentId,
    record.documentId,
    record.source,
    record.text,
    record.memoryType,
    JSON.stringify(record.topics),
    JSON.stringify(record.entities),
    record.eventDate === null ? null : epochMs(record.eventDate),
    epochMs(record.createdAt),
    epochMs(record.updatedAt),
    epochMs(record.lastAccessed),
    record.accessCount,
    record.salience,
    record.confidence,
    record.pinned,
    record.supersedes,
    record.supersededBy,
    epochMs(record.validFrom),
    record.validTo === null ? null : epochMs(record.validTo),
    record.memoryHash,
    epochMs(record.persistedAt),
    JSON.stringify(record.metadata),
    record.version,
    record.writtenBy,
  ];
}

/** The columns of a batch, as INSERT_MEMORIES binds them: one array per column. */
export function memoryColumnArrays(records: readonly MemoryRecord[]): unknown[][] {
  const columns: unknown[][] = MEMORY_COLUMNS.map(() => []);
  for (const record of records) {
    memoryValues(record).forEach((value, index) => {
      columns[index]?.push(value);
    });
  }
  return columns;
}

export function rowToMemory(row: MemoryRow): MemoryRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    namespace: row.namespace,
    userId: row.user_id,
    sessionId: row.session_id,
    agentId: row.agent_id,
    documentId: row.document_id,
    source: row.source,
    text: row.text,
    memoryType: row.memory_type as MemoryType,
    topics: row.topics,
    entities: row.entities,
    eventDate: row.event_date === null ? null : iso(row.event_date),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastAccessed: iso(row.last_accessed),
    accessCount: row.access_count,
    salience: row.salience,
    confidence: row.confidence,
    pinned: row.pinned,
    supersedes: row.supersedes,
    supersededBy: row.superseded_by,
    validFrom: iso(row.valid_from),
    validTo: row.valid_to === null ? null : iso(row.valid_to),
    memoryHash: row.memory_hash,
    persistedAt: iso(row.persisted_at),
    metadata: row.metadata,
    version: row.version,
    writtenBy: row.written_by as MemoryWriter,
    embeddingModel: row.embedding_model,
  };
}

/** The columns a version changes: copied to `memory_versions` and overwritten by an update. */
export const VERSION_COLUMNS = [
  'text',
  'memory_type',
  'namespace',
  'user_id',
  'session_id',
  'agent_id',
  'document_id',
  'source',
  'topics',
  'entities',
  'event_date',
  'updated_at',
  'salience',
  'confidence',
  'pinned',
  'metadata',
  'memory_hash',
  'valid_from',
  'version',
  'written_by',
] as const;

/** `UPDATE memories` to a new version: VERSION_COLUMNS as $1.., then the row's pk. */
export const UPDATE_VERSION = `UPDATE memories SET ${VERSION_COLUMNS.map((column, index) => {
  const parameter = `$${index + 1}`;
  if (column === 'topics' || column === 'entities')
    return `${column} = ARRAY(SELECT jsonb_array_elements_text(${parameter}::jsonb))`;
  return `${column} = ${parameter}${column === 'metadata' ? '::jsonb' : ''}`;
}).join(', ')} WHERE pk = $${VERSION_COLUMNS.length + 1}`;

/** VERSION_COLUMNS' values of a record, in order, as UPDATE_VERSION binds them. */
export function versionValues(record: MemoryRecord): unknown[] {
  const all = memoryValues(record);
  return VERSION_COLUMNS.map((column) => all[MEMORY_COLUMNS.indexOf(column)]);
}

/** A `memory_versions` row (a prior version), with its memory's id. */
export type MemoryVersionRow = Pick<MemoryRow, 'id' | (typeof VERSION_COLUMNS)[number]> & {
  valid_to: number;
};

/** A prior version as `memoryHistory` returns it. */
export function rowToMemoryVersion(row: MemoryVersionRow): MemoryVersion {
  return {
    id: row.id,
    version: row.version,
    text: row.text,
    memoryType: row.memory_type as MemoryType,
    namespace: row.namespace,
    userId: row.user_id,
    sessionId: row.session_id,
    agentId: row.agent_id,
    documentId: row.document_id,
    source: row.source,
    topics: row.topics,
    entities: row.entities,
    eventDate: row.event_date === null ? null : iso(row.event_date),
    updatedAt: iso(row.updated_at),
    salience: row.salience,
    confidence: row.confidence,
    pinned: row.pinned,
    metadata: row.metadata,
    memoryHash: row.memory_hash,
    validFrom: iso(row.valid_from),
    validTo: iso(row.valid_to),
    writtenBy: row.written_by as MemoryWriter,
  };
}
