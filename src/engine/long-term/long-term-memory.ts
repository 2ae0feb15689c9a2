import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { NotFoundError, parseEdit, parseWith, ValidationError } from '../../core/errors.js';
import { memoryHash } from '../../core/memory-hash.js';
import type { WorkingSet } from '../../core/ranking/rank-working-set.js';
import {
  type MemoryFilterInput,
  type MemoryRecord,
  type MemoryRecordEdit,
  type MemoryRecordInput,
  type MemoryWriter,
  memoryFilterSchema,
  memoryRecordEditSchema,
  memoryRecordInputSchema,
} from '../../core/schemas/memory-record.js';
import type { EmbeddingProvider } from '../../providers/embeddings/embedding-provider.js';
import { l2Normalize } from '../../providers/embeddings/l2-normalize.js';
import {
  type HybridSearchOptions,
  hybridSearch,
  type SearchRequest,
  type SearchResult,
} from '../../retrieval/hybrid-search.js';
import type {
  HistoryRange,
  InsertResult,
  MemoryHistory,
  MemoryRecordStore,
  NewMemoryRecord,
} from '../../stores/memory-record-store.js';
import { newId } from '../new-id.js';
import { WriteBehind } from '../write-behind.js';
import { deleteWithMergeChains } from './delete-with-merge-chains.js';
import { searchWorkingSet, type WorkingSetRequest } from './working-set.js';

export type { WorkingSetRequest } from './working-set.js';

/** Most records one create, edit or delete may name. */
export const MAX_MEMORY_BATCH = 1_000;
/** Most records one delete removes with the merge chains of the ids it names. */
const MAX_LINKED_DELETES = 10 * MAX_MEMORY_BATCH;
const tenantSchema = z.string().min(1).max(256);
const idsSchema = z.array(z.string().min(1).max(128)).min(1).max(MAX_MEMORY_BATCH);
const pageSchema = z.object({
  limit: z.number().int().min(1).max(1_000).default(20),
  offset: z.number().int().min(0).default(0),
  order: z.enum(['created_desc', 'created_asc', 'last_accessed_desc']).default('created_desc'),
});

export interface CreateOptions {
  /** Default true (see `create`). */
  deduplicate?: boolean;
  /** Who or what writes: default `api`. */
  writtenBy?: MemoryWriter;
}

export interface EditOptions {
  /** Who or what writes the new version: default `api`. */
  writtenBy?: MemoryWriter;
  /** Optimistic concurrency: the version the caller read (VersionConflictError otherwise). */
  expectedVersion?: number;
}

/** Long-term memory operations: validated, embedded, versioned, searchable. */
export interface LongTermMemory {
  /**
   * Stores new memories. A memory identical to a current one of the same owner (`memory-hash.ts`)
   * is not stored again: it comes back in `duplicates` with the existing record, unless
   * `deduplicate` is false.
   */
  create(tenantId: string, inputs: MemoryRecordInput[], options?: CreateOptions): Promise<InsertResult>;
  get(tenantId: string, id: string): Promise<MemoryRecord>;
  /**
   * Writes the next version of `id` with the changes, under the same id; the prior version stays in
   * its history. Changes that alter nothing write no version and return the record as it is.
   */
  edit(tenantId: string, id: string, changes: MemoryRecordEdit, options?: EditOptions): Promise<MemoryRecord>;
  /**
   * A page of the versions of the memory `id`, newest first (the current one first): see
   * `MemoryRecordStore.memoryHistory` for the range; the next page starts `before: nextBefore`.
   * NotFoundError if absent.
   */
  history(tenantId: string, id: string, range?: HistoryRange): Promise<MemoryHistory>;
  /**
   * Deletes the memories `ids` name, each with every memory linked to it by merges (those merged
   * into it, and what it was merged into): a deleted memory's old text must not linger under the
   * id it had before a merge. Resolves how many of `ids` named a memory that existed (ids of one
   * chain count once).
   */
  delete(tenantId: string, ids: string[]): Promise<number>;
  list(
    tenantId: string,
    filter?: MemoryFilterInput,
    page?: z.input<typeof pageSchema>,
  ): Promise<{ memories: MemoryRecord[]; total: number }>;
  /** Hybrid search; `options.countTotal: false` skips counting every match (see HybridSearchOptions). */
  search(
    tenantId: string,
    request: SearchRequest,
    options?: Pick<HybridSearchOptions, 'countTotal'>,
  ): Promise<SearchResult>;
  workingSet(
    tenantId: string,
    request: WorkingSetRequest,
  ): Promise<WorkingSet & { memories: MemoryRecord[] }>;
  /**
   * Embeds up to `batchSize` records lacking a vector from the current model; resolves how many.
   * Searches start this automatically (in the background) when they find such records.
   */
  reembed(tenantId: string, batchSize?: number): Promise<number>;
  /** Resolves when a background re-embedding of the tenant (if any) has finished. */
  idle(tenantId: string): Promise<void>;
  /** Identity of the embedding model searches use (`EmbeddingProvider.model`). */
  readonly embeddingModel: string;
  /**
   * The store's memory revision (`MemoryRecordStore.memoryRevision`): what is derived from the
   * tenant's records stays valid while it is unchanged. Null when the store cannot tell.
   */
  revision(tenantId: string): Promise<string | null>;
  /** Writes the queued access statistics of working sets (see `workingSet`). */
  flush(): Promise<void>;
  /** Writes the queued access statistics and queues no more. */
  close(): Promise<void>;
}

/** One working set's use of memories, waiting to be written. */
interface AccessUse {
  tenantId: string;
  ids: string[];
  at: string;
}

/** The input fields of a stored record that a version carries (what an edit starts from). */
function versionedFieldsOf(record: MemoryRecord): MemoryRecordInput {
  return {
    text: record.text,
    memoryType: record.memoryType,
    namespace: record.namespace,
    userId: record.userId,
    sessionId: record.sessionId,
    agentId: record.agentId,
    documentId: record.documentId,
    source: record.source,
    topics: record.topics,
    entities: record.entities,
    eventDate: record.eventDate,
    salience: record.salience,
    confidence: record.confidence,
    pinned: record.pinned,
    metadata: record.metadata,
  };
}

/** Whether every field an edit names already holds its value (instants compared as instants). */
function unchangedBy(record: MemoryRecord, edit: Record<string, unknown>): boolean {
  const stored = record as unknown as Record<string, unknown>;
  return Object.entries(edit).every(([key, value]) => {
    if (key === 'eventDate' && typeof value === 'string' && record.eventDate !== null) {
      return Date.parse(value) === Date.parse(record.eventDate);
    }
    return isDeepStrictEqual(stored[key], value);
  });
}

export function createLongTermMemory(
  store: MemoryRecordStore,
  embedder: EmbeddingProvider,
  clock: () => Date = () => new Date(),
  onBackgroundError: (error: unknown) => void = (error) =>
    console.error('engram: re-embedding failed', error),
): LongTermMemory {
  // Tenants whose records all carry the current model's vectors. New records are embedded with
  // the current model, so a tenant found clean stays clean: each is checked once per process.
  const embeddedTenants = new Set<string>();
  const reembedding = new Map<string, Promise<void>>();

  /** Detects records embedded by another model and re-embeds them in the background, once. */
  async function ensureEmbedded(tenantId: string): Promise<void> {
    if (embeddedTenants.has(tenantId) || reembedding.has(tenantId)) return;
    if ((await store.findUnembedded(tenantId, embedder.model, 1)).length === 0) {
      embeddedTenants.add(tenantId);
      return;
    }
    const run = (async () => {
      let embedded = 1;
      while (embedded > 0) embedded = await service.reembed(tenantId);
      embeddedTenants.add(tenantId);
    })()
      .catch(onBackgroundError)
      .finally(() => reembedding.delete(tenantId));
    reembedding.set(tenantId, run);
  }

  /**
   * Writes a batch of working-set uses: per tenant, each memory's count goes up by its uses and
   * its access time becomes the batch's latest: one store call per distinct use count (an agent
   * loop assembling many turns a second for one user used to cost one call, and on SQLite one
   * commit, per use of its most used memory).
   */
  async function writeAccess(batch: AccessUse[]): Promise<void> {
    const byTenant = new Map<string, { uses: Map<string, number>; at: string }>();
    for (const { tenantId, ids, at } of batch) {
      const entry = byTenant.get(tenantId) ?? { uses: new Map<string, number>(), at };
      for (const id of new Set(ids)) entry.uses.set(id, (entry.uses.get(id) ?? 0) + 1);
      if (at > entry.at) entry.at = at;
      byTenant.set(tenantId, entry);
    }
    for (const [tenantId, { uses, at }] of byTenant) {
      const byCount = new Map<number, string[]>();
      for (const [id, count] of uses) {
        const group = byCount.get(count);
        if (group) group.push(id);
        else byCount.set(count, [id]);
      }
      for (const [count, ids] of byCount) await store.recordAccess(tenantId, ids, at, count);
    }
  }
  // Access statistics are bookkeeping, not part of the answer: written in batches off the turn.
  const access = new WriteBehind<AccessUse>({ write: writeAccess, onError: onBackgroundError });

  async function toNewRecords(
    inputs: MemoryRecordInput[],
    writtenBy: MemoryWriter,
  ): Promise<NewMemoryRecord[]> {
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > MAX_MEMORY_BATCH) {
      throw new ValidationError(`memories must be an array of 1 to ${MAX_MEMORY_BATCH} records`);
    }
    const now = clock().toISOString();
    const parsed = inputs.map((input, index) =>
      parseWith(memoryRecordInputSchema, input, `memory at index ${index}`),
    );
    const ids = new Set<string>();
    parsed.forEach((record, index) => {
      if (record.id !== undefined && ids.has(record.id)) {
        throw new ValidationError(`Duplicate memory id ${record.id} at index ${index}`);
      }
      if (record.id !== undefined) ids.add(record.id);
      if (record.embedding && record.embedding.length !== embedder.dimensions) {
        throw new ValidationError(
          `Memory at index ${index} has a ${record.embedding.length}-dimensional embedding; ` +
            `the configured model ${embedder.model} makes ${embedder.dimensions}-dimensional vectors`,
        );
      }
    });
    const needed = parsed.filter((record) => !record.embedding);
    const computed = needed.length > 0 ? await embedder.embed(needed.map((record) => record.text)) : [];
    let next = 0;
    return parsed.map((record): NewMemoryRecord => {
      const vector = record.embedding ? l2Normalize(Float32Array.from(record.embedding)) : computed[next++];
      // Every field named, not `{ ...rest }`: spreading the parsed record and then adding a dozen
      // fields cost more per record (≈ 15 µs) than embedding its text with the static model.
      return {
        id: record.id ?? newId(),
        text: record.text,
        memoryType: record.memoryType,
        namespace: record.namespace,
        userId: record.userId,
        sessionId: record.sessionId,
        agentId: record.agentId,
        documentId: record.documentId,
        source: record.source,
        topics: record.topics,
        entities: record.entities,
        eventDate: record.eventDate,
        salience: record.salience,
        confidence: record.confidence,
        pinned: record.pinned,
        metadata: record.metadata,
        createdAt: record.createdAt ?? now,
        updatedAt: now,
        lastAccessed: record.lastAccessed ?? now,
        accessCount: 0,
        supersedes: null,
        validFrom: now,
        writtenBy,
        memoryHash: memoryHash(record),
        persistedAt: now,
        embedding: vector ? { model: embedder.model, vector } : null,
      };
    });
  }

  const service: LongTermMemory = {
    get embeddingModel() {
      return embedder.model;
    },
    async create(tenantId, inputs, options = {}) {
      parseWith(tenantSchema, tenantId, 'tenant');
      const records = await toNewRecords(inputs, options.writtenBy ?? 'api');
      return store.insertMemories(tenantId, records, { deduplicate: options.deduplicate ?? true });
    },

    async get(tenantId, id) {
      const [memory] = await store.getMemories(tenantId, [id]);
      if (!memory) throw new NotFoundError('Memory', id);
      return memory;
    },

    async edit(tenantId, id, changes, options = {}) {
      const edit = parseEdit(memoryRecordEditSchema, changes, 'memory edit');
      const current = await service.get(tenantId, id);
      if (unchangedBy(current, edit)) return current;
      const [next] = await toNewRecords(
        [{ ...versionedFieldsOf(current), ...edit }],
        options.writtenBy ?? 'api',
      );
      if (!next) throw new ValidationError('Nothing to edit');
      const { id: _id, createdAt: _created, lastAccessed: _accessed, accessCount: _count, ...update } = next;
      const { persistedAt: _persisted, supersedes: _supersedes, ...fields } = update;
      return store.updateMemory(tenantId, id, fields, {
        ...(options.expectedVersion !== undefined ? { expectedVersion: options.expectedVersion } : {}),
      });
    },

    async history(tenantId, id, range) {
      const history = await store.memoryHistory(tenantId, id, range);
      // An empty page below a `before` (or of limit 0) may still belong to a memory that exists.
      if (
        history.versions.length === 0 &&
        (await store.memoryHistory(tenantId, id, { limit: 1 })).versions.length === 0
      )
        throw new NotFoundError('Memory', id);
      return history;
    },

    async delete(tenantId, ids) {
      const named = parseWith(idsSchema, ids, 'memory ids');
      return deleteWithMergeChains(store, tenantId, named, MAX_LINKED_DELETES);
    },

    async list(tenantId, filter = {}, page = {}) {
      return store.listMemories(
        tenantId,
        parseWith(memoryFilterSchema, filter, 'memory filter'),
        parseWith(pageSchema, page, 'page'),
      );
    },

    async search(tenantId, request, options = {}) {
      parseWith(tenantSchema, tenantId, 'tenant');
      await ensureEmbedded(tenantId);
      return hybridSearch(store, embedder, tenantId, request, clock(), {
        ...(options.countTotal === false ? { countTotal: false } : {}),
      });
    },

    async workingSet(tenantId, request) {
      await ensureEmbedded(tenantId);
      const now = clock();
      const set = await searchWorkingSet(store, embedder, tenantId, request, now);
      if (set.memories.length > 0 && request.recordAccess !== false) {
        access.push({ tenantId, ids: set.memories.map((memory) => memory.id), at: now.toISOString() });
      }
      return set;
    },

    async idle(tenantId) {
      await reembedding.get(tenantId);
    },

    flush: () => access.flush(),
    close: () => access.close(),

    revision: async (tenantId) => (store.memoryRevision ? store.memoryRevision(tenantId) : null),

    async reembed(tenantId, batchSize = 256) {
      const pending = await store.findUnembedded(tenantId, embedder.model, batchSize);
      if (pending.length === 0) return 0;
      const vectors = await embedder.embed(pending.map((entry) => entry.text));
      await store.setEmbeddings(
        tenantId,
        embedder.model,
        pending.map((entry, index) => ({ id: entry.id, vector: vectors[index] as Float32Array })),
      );
      return pending.length;
    },
  };
  return service;
}
