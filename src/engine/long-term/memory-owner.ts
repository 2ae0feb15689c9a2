import { EngramError } from '../../core/errors.js';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';

/** Who owns a record that is not free-standing: a knowledge document or a procedure, of an agent. */
export type MemoryOwner =
  | { kind: 'knowledge'; agentId: string; documentId: string }
  | { kind: 'procedure'; agentId: string; procedureId: string };

/**
 * The owner of a record: a knowledge chunk (it has a `documentId`) belongs to its document, a
 * `procedural` record is a procedure; anything else is free-standing (null).
 */
export function ownerOf(
  record: Pick<MemoryRecord, 'id' | 'documentId' | 'memoryType' | 'agentId'>,
): MemoryOwner | null {
  if (record.documentId !== null) {
    return { kind: 'knowledge', agentId: record.agentId ?? '', documentId: record.documentId };
  }
  if (record.memoryType === 'procedural')
    return { kind: 'procedure', agentId: record.agentId ?? '', procedureId: record.id };
  return null;
}

/** The routes that change what `owner` owns, for the error message. */
function routesOf(owner: MemoryOwner): string {
  return owner.kind === 'knowledge'
    ? `POST /v1/agents/${owner.agentId}/knowledge (upload again) or DELETE /v1/agents/${owner.agentId}/knowledge/${owner.documentId} (admin)`
    : `PATCH or DELETE /v1/agents/${owner.agentId}/procedures/${owner.procedureId}, approve/reject (admin)`;
}

/**
 * A generic memory operation (REST `/v1/long-term-memory`, the MCP memory tools) aimed at a record
 * owned by a knowledge document or a procedure: 409, for every role. Such records change only
 * through their own routes, which keep the document (or the procedure's steps, triggers and
 * approval) and the records it produced consistent. Codes: `memory_owned_by_knowledge`,
 * `memory_owned_by_procedure`; AMS-shaped answers carry the code beside `detail`.
 */
export class OwnedMemoryError extends EngramError {
  constructor(kind: MemoryOwner['kind'], message: string, details: Record<string, unknown>) {
    super(`memory_owned_by_${kind}`, 'conflict', message, { details });
    this.name = 'OwnedMemoryError';
  }
}

/** The error for an operation on `memoryId`, which `owner` owns. */
export function ownedMemoryError(memoryId: string, owner: MemoryOwner): OwnedMemoryError {
  const id = memoryId.slice(0, 128);
  const what = owner.kind === 'knowledge' ? `knowledge document ${owner.documentId}` : 'a procedure';
  return new OwnedMemoryError(
    owner.kind,
    `Memory ${id} belongs to ${what} of agent ${owner.agentId}: the generic memory routes and tools ` +
      `do not change it; use ${routesOf(owner)}`,
    { memoryId: id, owner, use: routesOf(owner) },
  );
}

/** Throws OwnedMemoryError for the first of `records` that is not free-standing. */
export function assertFreeStanding(records: readonly MemoryRecord[]): void {
  for (const record of records) {
    const owner = ownerOf(record);
    if (owner) throw ownedMemoryError(record.id, owner);
  }
}

/** Throws OwnedMemoryError when one of `ids` names a record owned by a knowledge document or a procedure. */
export async function assertIdsFreeStanding(
  records: { getMemories(tenantId: string, ids: string[]): Promise<MemoryRecord[]> },
  tenantId: string,
  ids: readonly (string | null | undefined)[],
): Promise<void> {
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
  if (wanted.length > 0) assertFreeStanding(await records.getMemories(tenantId, wanted));
}
