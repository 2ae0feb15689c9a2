import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { EngramError, parseWith } from '../../core/errors.js';
import {
  type MemoryRecord,
  type MemoryRecordEdit,
  type MemoryRecordInput,
  memoryRecordInputSchema,
} from '../../core/schemas/memory-record.js';
import type { Engram } from '../../engram.js';
import { resolveCurrent } from './memory-versions.js';

/** Tries per record when the memory is merged into another between our read and write (rare). */
const MERGE_RETRIES = 10;

/** The fields an AMS create sets; a new version carries them, the rest (salience, …) is kept. */
function contentOf(parsed: z.output<typeof memoryRecordInputSchema>): MemoryRecordEdit {
  return {
    text: parsed.text,
    memoryType: parsed.memoryType,
    namespace: parsed.namespace,
    userId: parsed.userId,
    sessionId: parsed.sessionId,
    topics: parsed.topics,
    entities: parsed.entities,
    eventDate: parsed.eventDate,
    pinned: parsed.pinned,
    metadata: parsed.metadata,
  };
}

const sameInstant = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? null) === null || (b ?? null) === null
    ? (a ?? null) === (b ?? null)
    : Date.parse(a as string) === Date.parse(b as string);

/** Whether `memory` already holds `content` (so a create of it changes nothing). */
function holds(memory: MemoryRecord, content: MemoryRecordEdit): boolean {
  const { eventDate, ...rest } = content;
  const stored: Record<string, unknown> = memory as unknown as Record<string, unknown>;
  return (
    sameInstant(memory.eventDate, eventDate) &&
    Object.entries(rest).every(([key, value]) => isDeepStrictEqual(stored[key], value))
  );
}

/** Writes `content` over the memory `id` resolves to; false when `id` names no AMS-visible memory. */
async function supersedeIfChanged(
  engram: Engram,
  tenantId: string,
  id: string,
  content: MemoryRecordEdit,
): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const current = await resolveCurrent(engram, tenantId, id);
    if (!current) return false;
    if (holds(current, content)) return true;
    try {
      // No expected version: concurrent creates of one id are written over in turn (AMS: last
      // writer wins), as a PATCH is; the edit sets every field a create names, on the newest version.
      await engram.memories.edit(tenantId, current.id, content);
      return true;
    } catch (error) {
      // The memory was merged into another meanwhile: write over the memory it became instead.
      const merged = error instanceof EngramError && error.code === 'already_superseded';
      if (!merged || attempt >= MERGE_RETRIES) throw error;
    }
  }
}

/**
 * AMS create (upsert by id) without deleting anything: an id that resolves to a current memory gets
 * a new version under that id (the prior one stays in its history), unless it already holds the
 * same content (a no-op); other ids are inserted in one atomic batch, with hash deduplication
 * unless `deduplicate` is false (AMS then keeps identical records under their own ids).
 */
export async function upsertMemories(
  engram: Engram,
  tenantId: string,
  inputs: MemoryRecordInput[],
  options: { deduplicate: boolean } = { deduplicate: true },
) {
  const fresh: MemoryRecordInput[] = [];
  for (const [index, input] of inputs.entries()) {
    const parsed = parseWith(memoryRecordInputSchema, input, `memory at index ${index}`);
    const id = parsed.id;
    if (id === undefined || !(await supersedeIfChanged(engram, tenantId, id, contentOf(parsed)))) {
      fresh.push(input);
    }
  }
  if (fresh.length > 0) await engram.memories.create(tenantId, fresh, { deduplicate: options.deduplicate });
}
