import { createHash } from 'node:crypto';

/** The fields that make two memories "the same memory" for deduplication (AMS's definition). */
export interface MemoryIdentity {
  text: string;
  userId: string | null;
  sessionId: string | null;
  namespace: string | null;
  memoryType: string;
}

/** SHA-256 hex of a canonical JSON of the identity (sorted keys, nulls explicit). */
export function memoryHash(identity: MemoryIdentity): string {
  const canonical = JSON.stringify([
    ['memory_type', identity.memoryType],
    ['namespace', identity.namespace],
    ['session_id', identity.sessionId],
    ['text', identity.text],
    ['user_id', identity.userId],
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
