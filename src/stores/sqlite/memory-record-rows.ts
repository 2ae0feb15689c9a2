import type { JsonValue } from '../../core/schemas/json.js';
import type {
  MemoryRecord,
  MemoryType,
  MemoryVersion,
  MemoryWriter,
} from '../../core/schemas/memory-record.js';

/** A `memories` row joined with its embedding's model, as the select statements return it. */
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
  topics: string;
  entities: string;
  event_date: number | null;
  created_at: number;
  updated_at: number;
  last_accessed: number;
  access_count: number;
  salience: number;
  confidence: number;
  pinned: number;
  supersedes: string | null;
  superseded_by: string | null;
  valid_from: number;
  valid_to: number | null;
  memory_hash: string;
  persisted_at: number;
  metadata: string;
  version: number;
  written_by: string;
  embedding_model: string | null;
}

/** A `memory_versions` row (a prior version), with its memory's id. */
export type MemoryVersionRow = Pick<
  MemoryRow,
  | 'id'
  | 'text'
  | 'memory_type'
  | 'namespace'
  | 'user_id'
  | 'session_id'
  | 'agent_id'
  | 'document_id'
  | 'source'
  | 'topics'
  | 'entities'
  | 'event_date'
  | 'updated_at'
  | 'salience'
  | 'confidence'
  | 'pinned'
  | 'metadata'
  | 'memory_hash'
  | 'valid_from'
  | 'version'
  | 'written_by'
> & { valid_to: number };

/** Named parameters of `INSERT INTO memories`: every column but `pk`. */
export type MemoryParameters = Omit<MemoryRow, 'pk' | 'embedding_model'>;

/** The columns of `memories` a select returns, with the embedding's model, for `FROM memories m`. */
export const MEMORY_SELECT = `SELECT m.*, e.model AS embedding_model
  FROM memories m LEFT JOIN memory_embeddings e ON e.memory_pk = m.pk`;

const epochMs = (iso: string): number => Date.parse(iso);
const iso = (epoch: number): string => new Date(epoch).toISOString();

/** The row of a stored record (its timestamps already normalized by `toMemoryRecord`). */
export function memoryParameters(record: MemoryRecord): MemoryParameters {
  return {
    tenant_id: record.tenantId,
    id: record.id,
    namespace: record.namespace,
    user_id: record.userId,
    session_id: record.sessionId,
    agent_id: record.agentId,
    document_id: record.documentId,
    source: record.source,
    text: record.text,
    memory_type: record.memoryType,
    topics: JSON.stringify(record.topics),
    entities: JSON.stringify(record.entities),
    event_date: record.eventDate === null ? null : epochMs(record.eventDate),
    created_at: epochMs(record.createdAt),
    updated_at: epochMs(record.updatedAt),
    last_accessed: epochMs(record.lastAccessed),
    access_count: record.accessCount,
    salience: record.salience,
    confidence: record.confidence,
    pinned: record.pinned ? 1 : 0,
    supersedes: record.supersedes,
    superseded_by: record.supersededBy,
    valid_from: epochMs(record.validFrom),
    valid_to: record.validTo === null ? null : epochMs(record.validTo),
    memory_hash: record.memoryHash,
    persisted_at: epochMs(record.persistedAt),
    metadata: JSON.stringify(record.metadata),
    version: record.version,
    written_by: record.writtenBy,
  };
}

/** Most records have no topics or entities: skip the parser for an empty list. */
/** A JSON list column (`topics`, `entities`) as an array. */
export const parseList = (json: string): string[] => (json === '[]' ? [] : (JSON.parse(json) as string[]));

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
    topics: parseList(row.topics),
    entities: parseList(row.entities),
    eventDate: row.event_date === null ? null : iso(row.event_date),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastAccessed: iso(row.last_accessed),
    accessCount: row.access_count,
    salience: row.salience,
    confidence: row.confidence,
    pinned: row.pinned === 1,
    supersedes: row.supersedes,
    supersededBy: row.superseded_by,
    validFrom: iso(row.valid_from),
    validTo: row.valid_to === null ? null : iso(row.valid_to),
    memoryHash: row.memory_hash,
    persistedAt: iso(row.persisted_at),
    metadata: row.metadata === '{}' ? {} : (JSON.parse(row.metadata) as Record<string, JsonValue>),
    version: row.version,
    writtenBy: row.written_by as MemoryWriter,
    embeddingModel: row.embedding_model,
  };
}

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
    topics: parseList(row.topics),
    entities: parseList(row.entities),
    eventDate: row.event_date === null ? null : iso(row.event_date),
    updatedAt: iso(row.updated_at),
    salience: row.salience,
    confidence: row.confidence,
    pinned: row.pinned === 1,
    metadata: JSON.parse(row.metadata) as Record<string, JsonValue>,
    memoryHash: row.memory_hash,
    validFrom: iso(row.valid_from),
    validTo: iso(row.valid_to),
    writtenBy: row.written_by as MemoryWriter,
  };
}

/** The names of a `MemoryRow`'s columns. */
const ROW_COLUMNS: readonly (keyof MemoryRow)[] = [
  'pk',
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
  'embedding_model',
];

/**
 * Reads rows that a statement in raw mode returns (arrays, in the order of `columns`, which must
 * hold every `MemoryRow` column) as records. better-sqlite3 builds an array of a row several times
 * faster than an object with its 31 named columns, which matters where a search fetches hundreds.
 */
export function rawRowReader(columns: readonly string[]): (values: unknown[]) => MemoryRecord {
  const at = Object.fromEntries(
    ROW_COLUMNS.map((name) => {
      const position = columns.indexOf(name);
      if (position < 0) throw new Error(`The statement returns no column "${name}"`);
      return [name, position];
    }),
  ) as Record<keyof MemoryRow, number>;
  return (values) =>
    rowToMemory({
      pk: values[at.pk] as MemoryRow['pk'],
      tenant_id: values[at.tenant_id] as MemoryRow['tenant_id'],
      id: values[at.id] as MemoryRow['id'],
      namespace: values[at.namespace] as MemoryRow['namespace'],
      user_id: values[at.user_id] as MemoryRow['user_id'],
      session_id: values[at.session_id] as MemoryRow['session_id'],
      agent_id: values[at.agent_id] as MemoryRow['agent_id'],
      document_id: values[at.document_id] as MemoryRow['document_id'],
      source: values[at.source] as MemoryRow['source'],
      text: values[at.text] as MemoryRow['text'],
      memory_type: values[at.memory_type] as MemoryRow['memory_type'],
      topics: values[at.topics] as MemoryRow['topics'],
      entities: values[at.entities] as MemoryRow['entities'],
      event_date: values[at.event_date] as MemoryRow['event_date'],
      created_at: values[at.created_at] as MemoryRow['created_at'],
      updated_at: values[at.updated_at] as MemoryRow['updated_at'],
      last_accessed: values[at.last_accessed] as MemoryRow['last_accessed'],
      access_count: values[at.access_count] as MemoryRow['access_count'],
      salience: values[at.salience] as MemoryRow['salience'],
      confidence: values[at.confidence] as MemoryRow['confidence'],
      pinned: values[at.pinned] as MemoryRow['pinned'],
      supersedes: values[at.supersedes] as MemoryRow['supersedes'],
      superseded_by: values[at.superseded_by] as MemoryRow['superseded_by'],
      valid_from: values[at.valid_from] as MemoryRow['valid_from'],
      valid_to: values[at.valid_to] as MemoryRow['valid_to'],
      memory_hash: values[at.memory_hash] as MemoryRow['memory_hash'],
      persisted_at: values[at.persisted_at] as MemoryRow['persisted_at'],
      metadata: values[at.metadata] as MemoryRow['metadata'],
      version: values[at.version] as MemoryRow['version'],
      written_by: values[at.written_by] as MemoryRow['written_by'],
      embedding_model: values[at.embedding_model] as MemoryRow['embedding_model'],
    });
}

/** A vector as the little-endian float32 BLOB that sqlite-vec reads (a view, not a copy). */
export function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A float32 BLOB as a vector; copies when the bytes are not 4-byte aligned. */
export function blobVector(blob: Uint8Array): Float32Array {
  const length = blob.byteLength >> 2;
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, length);
  return new Float32Array(Uint8Array.prototype.slice.call(blob, 0, length * 4).buffer);
}
