import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import type { Engram } from '../../engram.js';

/** Longest version chain followed; edits of one memory beyond this are not expected. */
const MAX_VERSIONS = 1_000;

async function one(engram: Engram, tenantId: string, id: string): Promise<MemoryRecord | undefined> {
  const [memory] = await engram.store.memories.getMemories(tenantId, [id]);
  return memory;
}

/**
 * The current version of the memory `id` names, following `supersededBy` (AMS clients keep using
 * the id they created after a PATCH, which in engram made a new version). Null when absent, when
 * its chain ends in a deleted version, or for a procedure (not an AMS memory type).
 */
export async function resolveCurrent(
  engram: Engram,
  tenantId: string,
  id: string,
): Promise<MemoryRecord | null> {
  let memory = await one(engram, tenantId, id);
  for (let step = 0; memory?.supersededBy && step < MAX_VERSIONS; step++) {
    memory = await one(engram, tenantId, memory.supersededBy);
  }
  if (!memory || memory.validTo !== null || memory.memoryType === 'procedural') return null;
  return memory;
}

/** Ids of every version of the memory `id` belongs to (older and newer); [] when absent or a procedure. */
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
