import type { Database } from 'better-sqlite3';
import { memoryHash } from '../../core/memory-hash.js';

/** Rows read per query: the update cannot run while a statement still iterates. */
const PAGE = 1_000;

interface OwnedRow {
  pk: number;
  text: string;
  user_id: string | null;
  session_id: string | null;
  namespace: string | null;
  memory_type: string;
  agent_id: string | null;
  document_id: string | null;
  metadata: string;
  memory_hash: string;
}

/**
 * Recomputes `memory_hash` of the rows whose hash inputs grew when dedup was scoped to the owner
 * (agent, knowledge document) and to a procedure's meaning: hashes stored before that still match
 * another agent's record, or a procedure with other steps. Rows without those inputs hash as
 * before and are not read (the WHERE clause is `hashUsesOwnerFields` in SQL). Resolves how many hashes changed.
 */
export function rehashOwnedMemories(database: Database): number {
  const read = database.prepare<[number, number], OwnedRow>(
    `SELECT pk, text, user_id, session_id, namespace, memory_type, agent_id, document_id, metadata,
      memory_hash
    FROM memories
    WHERE pk > ? AND (agent_id IS NOT NULL OR document_id IS NOT NULL OR memory_type = 'procedural') -- hashUsesOwnerFields
    ORDER BY pk LIMIT ?`,
  );
  const write = database.prepare<[string, number]>('UPDATE memories SET memory_hash = ? WHERE pk = ?');
  let changed = 0;
  for (let after = 0; ; ) {
    const rows = read.all(after, PAGE);
    for (const row of rows) {
      const hash = memoryHash({
        text: row.text,
        userId: row.user_id,
        sessionId: row.session_id,
        namespace: row.namespace,
        memoryType: row.memory_type,
        agentId: row.agent_id,
        documentId: row.document_id,
        metadata: JSON.parse(row.metadata) as Record<string, unknown>,
      });
      if (row.memory_hash === hash) continue;
      write.run(hash, row.pk);
      changed += 1;
    }
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) return changed;
    after = last.pk;
  }
}
