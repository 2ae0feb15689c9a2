import type { MemoryRecord, MemoryVersion } from '../../core/schemas/memory-record.js';
import { Bm25Index } from '../../core/text/bm25-index.js';
import { CountCache } from '../count-cache.js';
import { FilterPartitions } from '../filter-partitions.js';
import type { NewMemoryRecord } from '../memory-record-store.js';
import {
  assertDimensions,
  assertUsableVector,
  compareOldestFirst,
  copyMetadata,
  toMemoryRecord,
} from '../memory-rules.js';
import { sharedString } from '../shared-string.js';
import { VectorCollection } from '../vector-collection.js';

/*
 * The in-memory driver's per-tenant state and the steps that keep its indexes in line with its
 * records (hash index, text index, session index, vector collections).
 */

/** One record as held in memory. Never handed out: callers get structured clones. */
export interface Entry {
  readonly id: string;
  record: MemoryRecord;
  /** Where its vector lives: the collection of `record.embeddingModel`, under a key. */
  vector: { collection: VectorCollection<MemoryRecord>; key: number } | null;
  /** Prior versions, oldest first (the current one is `record`). */
  history: MemoryVersion[];
}

/** A validated entry not yet stored, with the vector it brings. */
export interface Planned {
  entry: Entry;
  embedding: { model: string; vector: Float32Array } | null;
}

/** Everything of one tenant: tenants share nothing, so isolation is structural. */
export interface Tenant {
  entries: Map<string, Entry>;
  /** Ids of current records by memory hash, for deduplication (oldest first). */
  currentByHash: Map<string, Set<string>>;
  /** BM25 over every record's text, superseded ones included (filters decide visibility). */
  text: Bm25Index<MemoryRecord>;
  /** Counts by filter, valid until the next write (`changed`): hybrid search asks for its total often. */
  counts: CountCache;
  /**
   * Vectors per embedding model, each with its entry's record (the same object for the entry's
   * life, so filters see every change); a collection's dimensions are fixed by its first vector.
   */
  spaces: Map<string, VectorCollection<MemoryRecord>>;
  /** The next key a vector gets in its collection. */
  nextVectorKey: number;
  /** Ids of every record (superseded ones included) by session id, for `sessionNeighbors`. */
  sessions: Map<string, Set<string>>;
  /** Ids of every record by user, agent, memory type and document presence: filters scan these. */
  partitions: FilterPartitions<string>;
}

export const emptyTenant = (): Tenant => ({
  entries: new Map(),
  currentByHash: new Map(),
  text: new Bm25Index<MemoryRecord>(),
  counts: new CountCache(),
  spaces: new Map(),
  nextVectorKey: 0,
  sessions: new Map(),
  partitions: new FilterPartitions(),
});

/**
 * A copy of a held record for a caller, who may change it freely: every field is a primitive but
 * the two string lists and the metadata. Much cheaper than structuredClone (hybrid search fetches
 * its whole candidate pool), which only non-empty metadata still needs.
 */
export function copyRecord(record: MemoryRecord): MemoryRecord {
  return {
    ...record,
    topics: [...record.topics],
    entities: [...record.entities],
    metadata: copyMetadata(record.metadata),
  };
}

export function currentWithHash(tenant: Tenant, hash: string): Entry | undefined {
  for (const id of tenant.currentByHash.get(hash) ?? []) return tenant.entries.get(id);
  return undefined;
}

export function forgetCurrentHash(tenant: Tenant, record: MemoryRecord): void {
  const ids = tenant.currentByHash.get(record.memoryHash);
  ids?.delete(record.id);
  if (ids?.size === 0) tenant.currentByHash.delete(record.memoryHash);
}

export function forgetSession(tenant: Tenant, record: MemoryRecord): void {
  if (record.sessionId === null) return;
  const ids = tenant.sessions.get(record.sessionId);
  ids?.delete(record.id);
  if (ids?.size === 0) tenant.sessions.delete(record.sessionId);
}

/**
 * Checks `vector` for `model` against the tenant's space, or else against this write's earlier
 * vectors (`batch`), and records its length in `batch`.
 */
export function checkVector(
  tenant: Tenant,
  batch: Map<string, number>,
  model: string,
  vector: Float32Array,
  path: (string | number)[],
): void {
  assertUsableVector(vector, path);
  assertDimensions(model, tenant.spaces.get(model)?.dimensions ?? batch.get(model), vector, path);
  batch.set(model, vector.length);
}

/** Validates `input` as a new entry of the tenant (nothing is stored yet). */
export function plan(
  tenant: Tenant,
  tenantId: string,
  input: NewMemoryRecord,
  batch: Map<string, number>,
  path: (string | number)[],
): Planned {
  const record = toMemoryRecord(tenantId, input);
  record.namespace = sharedString(record.namespace);
  record.userId = sharedString(record.userId);
  record.agentId = sharedString(record.agentId);
  record.memoryType = sharedString(record.memoryType);
  if (input.embedding)
    checkVector(tenant, batch, input.embedding.model, input.embedding.vector, [
      ...path,
      'embedding',
      'vector',
    ]);
  return { entry: { id: record.id, record, vector: null, history: [] }, embedding: input.embedding };
}

/** The index of the first of `records` (sorted oldest first) that does not sort before `anchor`. */
export function positionOf(records: readonly MemoryRecord[], anchor: MemoryRecord): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareOldestFirst(records[middle] as MemoryRecord, anchor) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Gives `entry` the vector of `model` (a copy), replacing any vector it had. */
export function attachVector(tenant: Tenant, entry: Entry, model: string, vector: Float32Array): void {
  entry.vector?.collection.delete(entry.vector.key);
  let collection = tenant.spaces.get(model);
  if (!collection) {
    collection = new VectorCollection<MemoryRecord>(vector.length);
    tenant.spaces.set(model, collection);
  }
  const key = tenant.nextVectorKey;
  tenant.nextVectorKey += 1;
  collection.set(key, entry.record, vector);
  entry.vector = { collection, key };
  entry.record.embeddingModel = model;
}

export function store(tenant: Tenant, { entry, embedding }: Planned): void {
  tenant.entries.set(entry.id, entry);
  index(tenant, entry.record);
  if (embedding) attachVector(tenant, entry, embedding.model, embedding.vector);
}

/** Adds a current record to the hash, text and session indexes. */
function index(tenant: Tenant, record: MemoryRecord): void {
  const ids = tenant.currentByHash.get(record.memoryHash) ?? new Set<string>();
  tenant.currentByHash.set(record.memoryHash, ids.add(record.id));
  tenant.text.add(record.id, record.text, record);
  tenant.partitions.add(record.id, record);
  if (record.sessionId !== null) {
    const session = tenant.sessions.get(record.sessionId) ?? new Set<string>();
    tenant.sessions.set(record.sessionId, session.add(record.id));
  }
}

/**
 * Makes `next` the entry's current version in place: the record object stays the same (the
 * vector collections hold it), its indexes follow the new fields, and its vector is replaced.
 */
export function replaceVersion(
  tenant: Tenant,
  entry: Entry,
  next: MemoryRecord,
  embedding: Planned['embedding'],
): void {
  forgetCurrentHash(tenant, entry.record);
  forgetSession(tenant, entry.record);
  tenant.text.remove(entry.id);
  // Partitions (the tenant's and the vector collections') are keyed by the record's fields: leave
  // them while the fields are still the old ones.
  tenant.partitions.remove(entry.id, entry.record);
  detachVector(entry);
  Object.assign(entry.record, next, { embeddingModel: null });
  index(tenant, entry.record);
  if (embedding) attachVector(tenant, entry, embedding.model, embedding.vector);
}

/** Removes the entry's vector, if any. */
function detachVector(entry: Entry): void {
  entry.vector?.collection.delete(entry.vector.key);
  entry.vector = null;
  entry.record.embeddingModel = null;
}
