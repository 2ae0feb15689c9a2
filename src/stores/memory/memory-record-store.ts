import { NotFoundError, StoreError } from '../../core/errors.js';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import { compileMemoryFilter } from '../memory-filter.js';
import { hitTraits, type MemoryRecordStore } from '../memory-record-store.js';
import {
  accessTimes,
  alreadySupersededError,
  assertDimensions,
  assertUsableVector,
  codePointLength,
  compareMemoryOrder,
  compareOldestFirst,
  duplicateMemoryIdError,
  historyRange,
  isoTimestamp,
  memoryVersionConflict,
  nextVersionOf,
  pageBounds,
  readHistoryPage,
  toMemoryVersion,
  uniqueIds,
} from '../memory-rules.js';
import { searchTextIndex } from '../search-text-index.js';
import type { StoreOptions } from '../session-store.js';
import {
  attachVector,
  checkVector,
  copyRecord,
  currentWithHash,
  type Entry,
  emptyTenant,
  forgetCurrentHash,
  forgetSession,
  type Planned,
  plan,
  positionOf,
  replaceVersion,
  store,
  type Tenant,
} from './memory-tenant.js';

/** The memory driver's record store, which its session store closes along with itself. */
export type ClosableMemoryRecordStore = MemoryRecordStore & {
  close(): Promise<void>;
  /** Resolves once no vector index trains in the background (for tests and benchmarks). */
  settled(): Promise<void>;
};

/**
 * Creates the in-memory long-term memory driver: the reference for every rule of the contract,
 * with the in-memory BM25 index and an IVF vector index per model (`vector-collection.ts`). Each method
 * runs to completion synchronously inside its promise, so calls never interleave; a write
 * validates the whole change before touching anything, so a failure leaves nothing behind.
 */
export function createMemoryRecordStore(_options: StoreOptions = {}): ClosableMemoryRecordStore {
  const tenants = new Map<string, Tenant>();
  let closed = false;
  /** Bumped by every write of records or vectors (any tenant): `memoryRevision`. */
  let revision = 0;

  const ensureOpen = (): void => {
    if (closed) throw new StoreError('The memory store is closed');
  };

  /**
   * Records of a tenant that `filter` accepts (current ones only, unless it includes superseded):
   * only the smallest partition the filter confines matches to is scanned.
   */
  const matching = (tenantId: string, filter: Parameters<typeof compileMemoryFilter>[0]): MemoryRecord[] => {
    const tenant = tenants.get(tenantId);
    if (!tenant) return [];
    const accept = compileMemoryFilter(filter);
    const records: MemoryRecord[] = [];
    const narrowed = tenant.partitions.narrowest(filter);
    if (narrowed) {
      for (const id of narrowed.keys()) {
        const record = tenant.entries.get(id)?.record;
        if (record && accept(record)) records.push(record);
      }
    } else {
      for (const { record } of tenant.entries.values()) if (accept(record)) records.push(record);
    }
    return records;
  };

  const driver: ClosableMemoryRecordStore = {
    capabilities: { vectorSearch: 'index', vectorDistance: 'javascript' },

    async insertMemories(tenantId, records, options = {}) {
      ensureOpen();
      const tenant = tenants.get(tenantId) ?? emptyTenant();
      const planned: Planned[] = [];
      const plannedIds = new Set<string>();
      const plannedByHash = new Map<string, Entry>();
      const batch = new Map<string, number>();
      const duplicates: { requestedId: string; existing: Entry }[] = [];
      records.forEach((input, index) => {
        const existing =
          options.deduplicate === false
            ? undefined
            : (currentWithHash(tenant, input.memoryHash) ?? plannedByHash.get(input.memoryHash));
        if (existing) {
          duplicates.push({ requestedId: input.id, existing });
          return;
        }
        if (tenant.entries.has(input.id) || plannedIds.has(input.id)) {
          throw duplicateMemoryIdError(input.id, ['records', index, 'id']);
        }
        const next = plan(tenant, tenantId, input, batch, ['records', index]);
        planned.push(next);
        plannedIds.add(input.id);
        if (!plannedByHash.has(input.memoryHash)) plannedByHash.set(input.memoryHash, next.entry);
      });
      // Everything is validated: now the write cannot fail halfway.
      tenants.set(tenantId, tenant);
      if (planned.length > 0) {
        tenant.counts.clear();
        revision += 1;
      }
      for (const next of planned) store(tenant, next);
      return {
        inserted: planned.map(({ entry }) => copyRecord(entry.record)),
        duplicates: duplicates.map(({ requestedId, existing }) => ({
          requestedId,
          existing: copyRecord(existing.record),
        })),
      };
    },

    async getMemories(tenantId, ids) {
      ensureOpen();
      const entries = tenants.get(tenantId)?.entries;
      return uniqueIds(ids).flatMap((id) => {
        const entry = entries?.get(id);
        return entry ? [copyRecord(entry.record)] : [];
      });
    },

    async updateMemory(tenantId, id, next, options = {}) {
      ensureOpen();
      const tenant = tenants.get(tenantId);
      const entry = tenant?.entries.get(id);
      if (!tenant || !entry) throw new NotFoundError('Memory', id);
      const current = entry.record;
      if (current.validTo !== null) throw alreadySupersededError(id, current.supersededBy);
      if (options.expectedVersion !== undefined && options.expectedVersion !== current.version) {
        throw memoryVersionConflict(options.expectedVersion, current.version);
      }
      const record = nextVersionOf(current, next);
      if (next.embedding) {
        checkVector(tenant, new Map(), next.embedding.model, next.embedding.vector, [
          'next',
          'embedding',
          'vector',
        ]);
      }
      // Validated: now the write cannot fail halfway.
      tenant.counts.clear();
      revision += 1;
      entry.history.push(toMemoryVersion(current, record.validFrom));
      replaceVersion(tenant, entry, record, next.embedding);
      return copyRecord(entry.record);
    },

    async memoryHistory(tenantId, id, range) {
      ensureOpen();
      const entry = tenants.get(tenantId)?.entries.get(id);
      if (!entry) return { versions: [], nextBefore: null };
      // Prior versions newest first, below a version.
      const prior = (below: number) => entry.history.filter((version) => version.version < below).reverse();
      return readHistoryPage(entry.record, historyRange(range), {
        lengths: (below, count) =>
          prior(below)
            .slice(0, count)
            .map((version) => ({ version: version.version, chars: codePointLength(version.text) })),
        versions: (from, below) =>
          prior(below)
            .filter((version) => version.version >= from)
            .map((version) => structuredClone(version)),
      });
    },

    async supersede(tenantId, id, replacement) {
      ensureOpen();
      const tenant = tenants.get(tenantId);
      const old = tenant?.entries.get(id);
      if (!tenant || !old) throw new NotFoundError('Memory', id);
      if (old.record.validTo !== null) throw alreadySupersededError(id, old.record.supersededBy);
      if (tenant.entries.has(replacement.id))
        throw duplicateMemoryIdError(replacement.id, ['replacement', 'id']);
      const next = plan(tenant, tenantId, { ...replacement, supersedes: id }, new Map(), ['replacement']);
      tenant.counts.clear();
      revision += 1;
      forgetCurrentHash(tenant, old.record);
      old.record.supersededBy = next.entry.id;
      old.record.validTo = next.entry.record.validFrom;
      // The closed record stays indexed (for filters that include superseded ones), changed in place.
      old.vector?.collection.rowsChanged();
      tenant.text.changed(id);
      store(tenant, next);
      return copyRecord(next.entry.record);
    },

    async deleteMemories(tenantId, ids) {
      ensureOpen();
      const tenant = tenants.get(tenantId);
      if (!tenant) return 0;
      let deleted = 0;
      for (const id of uniqueIds(ids)) {
        const entry = tenant.entries.get(id);
        if (!entry) continue;
        tenant.counts.clear();
        revision += 1;
        tenant.entries.delete(id);
        if (entry.record.validTo === null) forgetCurrentHash(tenant, entry.record);
        tenant.text.remove(id);
        tenant.partitions.remove(id, entry.record);
        forgetSession(tenant, entry.record);
        entry.vector?.collection.delete(entry.vector.key);
        deleted += 1;
      }
      return deleted;
    },

    async countMemories(tenantId, filter) {
      ensureOpen();
      const tenant = tenants.get(tenantId);
      if (!tenant) return 0;
      return tenant.counts.get(tenantId, filter, () => {
        return matching(tenantId, filter).length;
      });
    },

    async listMemories(tenantId, filter, page) {
      ensureOpen();
      const { limit, offset, order } = pageBounds(page);
      const records = matching(tenantId, filter).sort(compareMemoryOrder(order));
      return {
        memories: records.slice(offset, offset + limit).map(copyRecord),
        total: records.length,
      };
    },

    async searchText(tenantId, query, filter, limit) {
      ensureOpen();
      const tenant = tenants.get(tenantId);
      if (!tenant || limit <= 0) return [];
      // The index's items are the live records, so hits' traits are the current version's.
      return searchTextIndex(
        tenant.text,
        tenant.partitions,
        compileMemoryFilter(filter),
        query,
        filter,
        limit,
      );
    },

    async searchVector(tenantId, vector, model, filter, limit) {
      ensureOpen();
      assertUsableVector(vector, ['vector']);
      const collection = tenants.get(tenantId)?.spaces.get(model);
      if (!collection) return [];
      assertDimensions(model, collection.dimensions, vector, ['vector']);
      // Rows are the live records (`attachVector`).
      return collection
        .nearestRows(vector, limit, compileMemoryFilter(filter), filter)
        .map(({ row, distance }) => ({ id: row.id, distance, traits: hitTraits(row) }));
    },

    async sessionNeighbors(tenantId, ids, filter, window) {
      ensureOpen();
      const tenant = tenants.get(tenantId);
      if (!tenant) return [];
      const accept = compileMemoryFilter(filter);
      // Each session's accepted records, sorted once however many of `ids` it holds.
      const ordered = new Map<string, MemoryRecord[]>();
      const sessionOf = (sessionId: string): MemoryRecord[] => {
        let records = ordered.get(sessionId);
        if (!records) {
          records = [...(tenant.sessions.get(sessionId) ?? [])]
            .flatMap((id) => tenant.entries.get(id)?.record ?? [])
            .filter(accept)
            .sort(compareOldestFirst);
          ordered.set(sessionId, records);
        }
        return records;
      };
      return uniqueIds(ids).flatMap((id) => {
        const anchor = tenant.entries.get(id)?.record;
        if (!anchor || anchor.sessionId === null) return [];
        const records = sessionOf(anchor.sessionId);
        const at = positionOf(records, anchor);
        const before = records.slice(Math.max(0, at - Math.max(0, window)), at);
        const start = records[at]?.id === anchor.id ? at + 1 : at;
        const after = records.slice(start, start + Math.max(0, window));
        return [
          {
            id,
            sessionId: anchor.sessionId,
            before: before.reverse().map((record) => record.id),
            after: after.map((record) => record.id),
          },
        ];
      });
    },

    async recordAccess(tenantId, ids, at, times) {
      ensureOpen();
      const lastAccessed = isoTimestamp(at);
      const bump = accessTimes(times);
      const tenant = tenants.get(tenantId);
      tenant?.counts.clearAccessDependent();
      for (const id of uniqueIds(ids)) {
        const record = tenant?.entries.get(id)?.record;
        if (!record) continue;
        record.accessCount += bump;
        record.lastAccessed = lastAccessed;
      }
    },

    async findUnembedded(tenantId, model, limit) {
      ensureOpen();
      return matching(tenantId, {})
        .filter((record) => record.embeddingModel !== model)
        .sort(compareOldestFirst)
        .slice(0, Math.max(0, limit))
        .map((record) => ({ id: record.id, text: record.text }));
    },

    async setEmbeddings(tenantId, model, embeddings) {
      ensureOpen();
      const tenant = tenants.get(tenantId) ?? emptyTenant();
      const batch = new Map<string, number>();
      const planned: [Entry, Float32Array][] = [];
      embeddings.forEach(({ id, vector }, index) => {
        const path = ['embeddings', index, 'vector'];
        const entry = tenant.entries.get(id);
        if (entry) {
          checkVector(tenant, batch, model, vector, path);
          planned.push([entry, vector]);
        } else {
          // A record deleted since `findUnembedded` listed it needs no vector, but the vector is checked.
          assertUsableVector(vector, path);
          assertDimensions(model, tenant.spaces.get(model)?.dimensions ?? batch.get(model), vector, path);
        }
      });
      if (planned.length > 0) revision += 1;
      for (const [entry, vector] of planned) attachVector(tenant, entry, model, vector);
    },

    async memoryRevision() {
      ensureOpen();
      return String(revision);
    },

    async settled() {
      for (const tenant of tenants.values()) {
        for (const collection of tenant.spaces.values()) await collection.settled();
      }
    },

    async close() {
      closed = true;
      tenants.clear();
    },
  };
  return driver;
}
