import { expect } from 'vitest';
import { memoryHash } from '../../src/core/memory-hash.js';
import type { MemoryFilter, MemoryRecord } from '../../src/core/schemas/memory-record.js';
import type { EngramStore } from '../../src/stores/engram-store.js';
import type {
  MemoryRecordStore,
  MemoryUpdate,
  NewMemoryRecord,
} from '../../src/stores/memory-record-store.js';
import { rejectionOf } from './fixtures.js';

/** What every memory conformance section shares: a fresh store per test. */
export interface MemoryConformanceContext {
  store: EngramStore;
  memories: MemoryRecordStore;
}

export const TENANT = 'tenant-a';
export const OTHER_TENANT = 'tenant-b';
export const MODEL = 'test-model@4';
export const T0 = '2026-01-01T00:00:00.000Z';

/** `T0` plus `days` days, as ISO text. */
export const day = (days: number): string => new Date(Date.parse(T0) + days * 86_400_000).toISOString();

/** A filter with only the default condition: current versions. */
export const CURRENT: MemoryFilter = { includeSuperseded: false };
/** No condition at all. */
export const EVERYTHING: MemoryFilter = { includeSuperseded: true };

type Overrides = Partial<Omit<NewMemoryRecord, 'embedding'>> & {
  /** A vector for `MODEL`; null for none. Default: none. */
  vector?: number[] | null;
};

/** A record as the engine would hand it to the store; the hash follows the identity fields. */
export function newMemory(id: string, overrides: Overrides = {}): NewMemoryRecord {
  const { vector = null, ...fields } = overrides;
  const base = {
    id,
    text: `memory ${id}`,
    memoryType: 'semantic' as const,
    namespace: 'app',
    userId: 'user-1',
    sessionId: null,
    agentId: null,
    documentId: null,
    source: null,
    topics: [],
    entities: [],
    eventDate: null,
    createdAt: T0,
    updatedAt: T0,
    lastAccessed: T0,
    accessCount: 0,
    salience: 0.5,
    confidence: 0.8,
    pinned: false,
    metadata: {},
    supersedes: null,
    validFrom: T0,
    persistedAt: T0,
    writtenBy: 'api' as const,
    ...fields,
  };
  return {
    memoryHash: memoryHash(base),
    ...base,
    embedding: vector === null ? null : { model: MODEL, vector: Float32Array.from(vector) },
  };
}

/** The next version of a fixture record, as an edit sends it: `newMemory`'s fields without what an update keeps. */
export function nextVersion(overrides: Overrides = {}): MemoryUpdate {
  const {
    id: _id,
    createdAt: _created,
    lastAccessed: _accessed,
    accessCount: _count,
    persistedAt: _persisted,
    supersedes: _supersedes,
    ...update
  } = newMemory('unused', overrides);
  return update;
}

/** The record the store should hold for `input` in `tenantId`, before any versioning or access. */
export function expectedRecord(input: NewMemoryRecord, tenantId = TENANT): MemoryRecord {
  const { embedding, ...fields } = input;
  return {
    ...fields,
    tenantId,
    supersededBy: null,
    validTo: null,
    version: 1,
    embeddingModel: embedding?.model ?? null,
  };
}

export const idsOf = (items: readonly { id: string }[]): string[] => items.map((item) => item.id);

/** Inserts records and fails the test unless all were inserted. */
export async function insertAll(
  memories: MemoryRecordStore,
  records: NewMemoryRecord[],
  tenantId = TENANT,
): Promise<MemoryRecord[]> {
  const result = await memories.insertMemories(tenantId, records);
  expect(result.duplicates).toEqual([]);
  return result.inserted;
}

/** Every record of a tenant, superseded ones included, oldest id first. */
export async function everything(memories: MemoryRecordStore, tenantId = TENANT): Promise<MemoryRecord[]> {
  const { memories: all } = await memories.listMemories(tenantId, EVERYTHING, {
    limit: 10_000,
    offset: 0,
    order: 'created_asc',
  });
  return all;
}

/** Expects `promise` to reject with an EngramError of `code` (and the given class, when named). */
export async function expectCode(
  promise: Promise<unknown>,
  code: string,
  type?: abstract new (...args: never[]) => Error,
) {
  const error = await rejectionOf(promise);
  if (type) expect(error).toBeInstanceOf(type);
  expect(error).toMatchObject({ code });
  return error;
}
