import { createHash } from 'node:crypto';

/**
 * The fields that make two memories "the same memory" for deduplication: AMS's definition (text,
 * user, session, namespace, type), plus the owner fields engram adds (agent, knowledge document)
 * and, for a procedure, what it means beyond its searchable text (name, triggers, examples, steps).
 */
export interface MemoryIdentity {
  text: string;
  userId: string | null;
  sessionId: string | null;
  namespace: string | null;
  memoryType: string;
  agentId?: string | null;
  documentId?: string | null;
  metadata?: Record<string, unknown>;
}

/** The metadata that is part of a procedure's identity (its status and version are not). */
const PROCEDURE_MEANING = ['name', 'triggers', 'examples', 'steps'] as const;

/**
 * SHA-256 hex of a canonical JSON of the identity (sorted keys, nulls explicit). The engram fields
 * enter only when set, so a record without an agent, document or procedure meaning (every record
 * an AMS client writes) hashes exactly as in AMS, and hashes stored before they were added stay
 * valid for such records.
 */
export function memoryHash(identity: MemoryIdentity): string {
  const fields: [string, unknown][] = [];
  if (identity.agentId != null) fields.push(['agent_id', identity.agentId]);
  if (identity.documentId != null) fields.push(['document_id', identity.documentId]);
  fields.push(['memory_type', identity.memoryType], ['namespace', identity.namespace]);
  if (identity.memoryType === 'procedural' && identity.metadata) {
    const meaning = PROCEDURE_MEANING.map((key) => [key, identity.metadata?.[key] ?? null]);
    fields.push(['procedure', meaning]);
  }
  fields.push(['session_id', identity.sessionId], ['text', identity.text], ['user_id', identity.userId]);
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/**
 * Whether the hash of this record uses fields beyond AMS's (an owner or a procedure's meaning):
 * the records whose hashes older engrams computed differently, and that an upgrade (SQLite
 * migration 17) or an import of an older export must hash again.
 */
export function hashUsesOwnerFields(identity: Pick<MemoryIdentity, 'agentId' | 'documentId' | 'memoryType'>) {
  return identity.agentId != null || identity.documentId != null || identity.memoryType === 'procedural';
}
