import { VersionConflictError } from '../../core/errors.js';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import type { PendingMemory } from '../../core/schemas/session.js';
import type { SessionStore } from '../../stores/session-store.js';
import { type SessionRef, toSessionKey } from '../sessions/session-ref.js';
import type { LongTermMemory } from './long-term-memory.js';
import { ownerOf } from './memory-owner.js';

export interface MemoryPromoterOptions {
  store: SessionStore;
  memories: LongTermMemory;
  clock: () => Date;
  /**
   * Cosine similarity at or above which a new memory counts as a copy of one the user already has
   * (same namespace and user) and is not stored again. High by default: the offline embeddings put
   * different facts on one topic close together, and a missed duplicate costs less than a lost fact.
   */
  duplicateSimilarity?: number;
}

/** What promoting one session did. */
export interface PromotionResult {
  created: string[];
  /** Ids of memories that got a new version (the id stays). */
  versioned: string[];
  /** Pending memories already stored (same id and text, same hash, or a near-identical copy). */
  unchanged: string[];
  /** Pending memories whose id names a knowledge chunk or a procedure: never changed (memory-owner.ts). */
  refused?: string[];
}

const MAX_PATCH_RETRIES = 8;
const MAX_CHAIN = 64;

/**
 * Promotes a session's pending `memories` (persistedAt null) to long-term memory, then marks them
 * persisted. A pending memory whose id is a stored record with other text becomes a new version
 * of that record under the same id (the prior version stays in its history); identical text, an identical hash or a near-identical copy
 * creates nothing, so promoting twice is a no-op. The session is updated with a version check and
 * retried on conflict, merging with whatever changed meanwhile: no update is lost.
 */
export function createMemoryPromoter(options: MemoryPromoterOptions) {
  const { store, memories, clock } = options;
  const duplicateDistance = 1 - (options.duplicateSimilarity ?? 0.97);

  /** The current memory `id` leads to (following merges), or null when the tenant has no such record. */
  async function currentVersion(tenantId: string, id: string): Promise<MemoryRecord | null> {
    let record: MemoryRecord | null = null;
    let next: string | null = id;
    for (let step = 0; next !== null && step < MAX_CHAIN; step += 1) {
      const page = await memories.list(
        tenantId,
        { ids: [next], includeSuperseded: true },
        { limit: 1, offset: 0 },
      );
      const found: MemoryRecord | undefined = page.memories[0];
      if (!found) return record;
      record = found;
      next = found.supersededBy;
    }
    return record;
  }

  async function nearCopy(tenantId: string, pending: PendingMemory): Promise<boolean> {
    const { hits } = await memories.search(tenantId, {
      text: pending.text,
      mode: 'vector',
      limit: 1,
      distanceThreshold: duplicateDistance,
      filter: {
        includeSuperseded: false,
        namespace: pending.namespace === null ? { exists: false } : { eq: pending.namespace },
        userId: pending.userId === null ? { exists: false } : { eq: pending.userId },
      },
    });
    return hits.length > 0;
  }

  async function promoteOne(
    tenantId: string,
    pending: PendingMemory,
    result: PromotionResult,
  ): Promise<void> {
    const fields = {
      text: pending.text,
      memoryType: pending.memoryType,
      topics: pending.topics,
      entities: pending.entities,
      namespace: pending.namespace,
      userId: pending.userId,
      sessionId: pending.sessionId,
      eventDate: pending.eventDate,
      metadata: pending.metadata,
    };
    const existing = await currentVersion(tenantId, pending.id);
    if (existing && ownerOf(existing)) {
      result.refused = [...(result.refused ?? []), pending.id];
      return;
    }
    if (existing) {
      if (existing.text === pending.text) {
        result.unchanged.push(pending.id);
        return;
      }
      const version = await memories.edit(tenantId, existing.id, fields);
      result.versioned.push(version.id);
      return;
    }
    if (await nearCopy(tenantId, pending)) {
      result.unchanged.push(pending.id);
      return;
    }
    const { inserted } = await memories.create(tenantId, [
      { ...fields, id: pending.id, createdAt: pending.createdAt },
    ]);
    if (inserted.length > 0) result.created.push(pending.id);
    else result.unchanged.push(pending.id);
  }

  async function promote(ref: SessionRef): Promise<PromotionResult> {
    const key = toSessionKey(ref);
    const result: PromotionResult = { created: [], versioned: [], unchanged: [] };
    const state = await store.getSession(key);
    const pending = state?.memories.filter((memory) => memory.persistedAt === null) ?? [];
    if (pending.length === 0) return result;
    // A memory without its own scope inherits the session's (AMS promotes them unscoped: §8.12).
    for (const memory of pending) {
      const scoped = {
        ...memory,
        namespace: memory.namespace ?? key.namespace,
        userId: memory.userId ?? key.userId,
        sessionId: memory.sessionId ?? key.sessionId,
      };
      await promoteOne(key.tenantId, scoped, result);
    }

    // Mark them persisted without overwriting changes made meanwhile: only entries whose text is
    // still the promoted one are marked.
    const promoted = new Map(pending.map((memory) => [memory.id, memory.text]));
    const persistedAt = clock().toISOString();
    for (let attempt = 1; ; attempt += 1) {
      const current = await store.getSession(key);
      if (!current) return result;
      const next = current.memories.map((memory) =>
        memory.persistedAt === null && promoted.get(memory.id) === memory.text
          ? { ...memory, persistedAt }
          : memory,
      );
      try {
        // engram's own write: the TTL still counts from the caller's last write.
        await store.patchSession(
          key,
          { memories: next, keepExpiry: true },
          { expectedVersion: current.version },
        );
        return result;
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt >= MAX_PATCH_RETRIES) throw error;
      }
    }
  }

  return { promote };
}

export type MemoryPromoter = ReturnType<typeof createMemoryPromoter>;
