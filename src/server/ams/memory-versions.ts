import type { MemoryRecord } from '../../core/schemas/memory-record.js';
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
 * Ids of the memory `id` and of the memories linked to it by merges (older and newer), which is how
 * pre-migration version chains are linked too; [] when absent or a procedure.
 */
export async function versionIds(engram: Engram, tenantId: string, id: string): Promise<string[]> {
  const start = await one(engram, tenantId, id);
  if (!start || start.memoryType === 'procedural') return [];
  const ids = [start.id];
  let older = start.supersedes;
  while (older && ids.length < MAX_VERSIONS) {
    const memory = await one(engram, tenantId, older);
    if (!memory) break;
    ids.push(memory.id);
    older = memory.supersedes;
  }
  let newer = start.supersededBy;
  while (newer && ids.length < MAX_VERSIONS) {
    const memory = await one(engram, tenantId, newer);
    if (!memory) break;
    ids.push(memory.id);
    newer = memory.supersededBy;
  }
  return ids;
}

/**
 * Deletes the memories `ids` name, each with all its versions (a deleted memory's old text must not
 * linger); resolves how many of `ids` named a memory that existed.
 */
export async function deleteWithVersions(engram: Engram, tenantId: string, ids: string[]): Promise<number> {
  let deleted = 0;
  const all = new Set<string>();
  for (const id of new Set(ids)) {
    const chain = await versionIds(engram, tenantId, id);
    if (chain.length === 0 || chain.every((version) => all.has(version))) continue;
    deleted++;
    for (const version of chain) all.add(version);
  }
  if (all.size > 0) await engram.store.memories.deleteMemories(tenantId, [...all]);
  return deleted;
}
