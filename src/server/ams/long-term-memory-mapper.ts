import type { JsonObject, JsonValue } from '../../core/schemas/json.js';
import type { MemoryRecord, MemoryRecordInput, MemoryVersion } from '../../core/schemas/memory-record.js';
import type { SearchHit } from '../../retrieval/hybrid-search.js';
import { formatAmsDateTime } from './ams-datetime.js';
import type { AmsRecordInput } from './long-term-memory-schemas.js';

/**
 * AMS fields engram has no column for travel in `metadata` under this key, and are taken out of
 * `metadata` again on the way back (a client's own `__ams` key would be overwritten).
 */
export const AMS_METADATA_KEY = '__ams';

interface AmsExtras {
  discrete_memory_extracted: 't' | 'f';
  extraction_strategy: string;
  extraction_strategy_config: JsonObject;
  extracted_from: string[];
  /** Set by promotion from working memory; null for records created through the API (AMS discards client values). */
  persisted_at: string | null;
}

/** The AMS extras kept with a record, or AMS's defaults for records engram created itself. */
export function amsExtrasOf(memory: MemoryRecord): AmsExtras {
  const stored = memory.metadata[AMS_METADATA_KEY] as Partial<AmsExtras> | undefined;
  return {
    discrete_memory_extracted: stored?.discrete_memory_extracted ?? 't',
    extraction_strategy: stored?.extraction_strategy ?? 'discrete',
    extraction_strategy_config: stored?.extraction_strategy_config ?? {},
    extracted_from: stored?.extracted_from ?? [],
    persisted_at: stored === undefined ? memory.persistedAt : (stored.persisted_at ?? null),
  };
}

/** A create item (§4.7) as engram's memory input; the AMS-only fields go to the metadata extras. */
export function toMemoryInput(record: AmsRecordInput): MemoryRecordInput {
  const extras: AmsExtras = {
    discrete_memory_extracted: record.discrete_memory_extracted,
    extraction_strategy: record.extraction_strategy,
    extraction_strategy_config: record.extraction_strategy_config as JsonObject,
    extracted_from: record.extracted_from ?? [],
    persisted_at: null,
  };
  return {
    id: record.id,
    text: record.text,
    memoryType: record.memory_type,
    namespace: record.namespace ?? null,
    userId: record.user_id ?? null,
    sessionId: record.session_id ?? null,
    topics: record.topics ?? [],
    entities: record.entities ?? [],
    eventDate: record.event_date ?? null,
    pinned: record.pinned ?? false,
    ...(record.created_at ? { createdAt: record.created_at } : {}),
    ...(record.last_accessed ? { lastAccessed: record.last_accessed } : {}),
    metadata: {
      ...(record.metadata as JsonObject),
      [AMS_METADATA_KEY]: extras as unknown as JsonValue,
    },
  };
}

const time = (iso: string | null) => (iso === null ? null : formatAmsDateTime(iso));

/** MemoryRecord (§2.2): all 21 fields, datetimes in pydantic's form, lists never null. */
export function toAmsRecord(memory: MemoryRecord) {
  const { [AMS_METADATA_KEY]: _extras, ...metadata } = memory.metadata;
  const extras = amsExtrasOf(memory);
  return {
    id: memory.id,
    text: memory.text,
    session_id: memory.sessionId,
    user_id: memory.userId,
    namespace: memory.namespace,
    last_accessed: formatAmsDateTime(memory.lastAccessed),
    created_at: formatAmsDateTime(memory.createdAt),
    updated_at: formatAmsDateTime(memory.updatedAt),
    pinned: memory.pinned,
    access_count: memory.accessCount,
    topics: memory.topics,
    entities: memory.entities,
    memory_hash: memory.memoryHash,
    discrete_memory_extracted: extras.discrete_memory_extracted,
    memory_type: memory.memoryType,
    persisted_at: time(extras.persisted_at),
    extracted_from: extras.extracted_from,
    event_date: time(memory.eventDate),
    extraction_strategy: extras.extraction_strategy,
    extraction_strategy_config: extras.extraction_strategy_config,
    metadata,
  };
}

export type AmsSearchMode = 'semantic' | 'keyword' | 'hybrid';

/**
 * MemoryRecordResult (§2.3, §5.3). Filter-only listing: dist 0, score and score_type null.
 * semantic: dist = cosine distance, score = max(0, 1 − dist). keyword and hybrid: score = the
 * hit's score ÷ the best score among all candidates (top = 1), dist = 1 − score.
 */
export function toAmsResult(hit: SearchHit, mode: AmsSearchMode, listing: boolean) {
  const record = toAmsRecord(hit.memory);
  if (listing) return { ...record, dist: 0, score: null, score_type: null };
  if (mode === 'semantic') {
    const dist = hit.distance ?? 1;
    return { ...record, dist, score: Math.max(0, 1 - dist), score_type: mode };
  }
  const score = hit.similarity ?? 0;
  return { ...record, dist: 1 - score, score, score_type: mode };
}

/**
 * One version of a memory in the history route (an engram extension), in the snake_case and
 * datetime form of AMS records: what the version said, when it was current, who wrote it.
 */
export function toAmsVersion(version: MemoryVersion) {
  const { [AMS_METADATA_KEY]: _extras, ...metadata } = version.metadata;
  return {
    version: version.version,
    text: version.text,
    memory_type: version.memoryType,
    namespace: version.namespace,
    user_id: version.userId,
    session_id: version.sessionId,
    agent_id: version.agentId,
    document_id: version.documentId,
    topics: version.topics,
    entities: version.entities,
    event_date: time(version.eventDate),
    pinned: version.pinned,
    memory_hash: version.memoryHash,
    metadata,
    updated_at: formatAmsDateTime(version.updatedAt),
    valid_from: formatAmsDateTime(version.validFrom),
    valid_to: time(version.validTo),
    written_by: version.writtenBy,
  };
}
