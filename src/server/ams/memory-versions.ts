import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import { MAX_MEMORY_BATCH } from '../../engine/long-term/long-term-memory.js';
import type { Engram } from '../../engram.js';

/** Longest version chain followed; edits of one memory beyond this are not expected. */
const MAX_VERSIONS = 1_000;

async function one(engram: Engram, tenantId: string, id: string): Promise<MemoryRecord | undefined> {
  const [memory] = await engram.store.memories.getMemories(tenantId, [id]);
  return memory;
}

/**
 * The current memory `id` leads to: itself, or for a memory merged away (and for the per-edit ids
 * of version chains written before stable ids, which migration 12 left as closed rows) the one
 * that `supersededBy` leads to. Null when absent or when its chain ends in a deleted memory.
 */
export async function resolveLatest(
  engram: Engram,
  tenantId: string,
  id: string,
): Promise<MemoryRecord | null> {
  let memory = await one(engram, tenantId, id);
  for (let step = 0; memory?.supersededBy && step < MAX_VERSIONS; step++) {
    memory = await one(engram, tenantId, memory.supersededBy);
  }
  return memory && memory.validTo === null ? memory : null;
}

/** `resolveLatest`, and null for a procedure (not an AMS memory type). */
export async function resolveCurrent(
  engram: Engram,
  tenantId: string,
  id: string,
): Promise<MemoryRecord | null> {
  const memory = await resolveLatest(engram, tenantId, id);
  return memory?.memoryType === 'procedural' ? null : memory;
}

/**
 * Deletes the memories `ids` name, each with the memories linked to it by merges
 * (`memories.delete`), in batches of the engine's limit (a compaction or a forget may name more,
 * or none); resolves how many named a memory that existed.
 */
export async function deleteMemories(
  engram: Engram,
  tenantId: string,
  ids: readonly string[],
): Promise<number> {
  let deleted = 0;
  for (let start = 0; start < ids.length; start += MAX_MEMORY_BATCH) {
    deleted += await engram.memories.delete(tenantId, ids.slice(start, start + MAX_MEMORY_BATCH));
  }
  return deleted;
}
