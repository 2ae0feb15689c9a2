import { ValidationError } from '../core/errors.js';
import type { MemoryRecordInput } from '../core/schemas/memory-record.js';
import { toMemoryInput } from '../server/ams/long-term-memory-mapper.js';
import { amsRecordInputSchema } from '../server/ams/long-term-memory-schemas.js';

/**
 * The records of an AMS long-term memory dump, as the AMS API returns them (docs/cli.md): a search
 * response (`{"memories": [...]}`), a JSON array of records, or one record per line. Each becomes
 * engram's memory input the way `POST /v1/long-term-memory/` maps it (AMS-only fields kept).
 */
export function amsRecordsOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { memories?: unknown }).memories)
  ) {
    return (value as { memories: unknown[] }).memories;
  }
  return [value];
}

/** One AMS record as engram's input; a ValidationError names what is wrong with it. */
export function toMemoryInputFromAms(record: unknown): MemoryRecordInput {
  const parsed = amsRecordInputSchema.safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      `Not an AMS memory record: ${issue?.path.join('.') || 'record'}: ${issue?.message}`,
    );
  }
  return toMemoryInput(parsed.data);
}
