import { join } from 'node:path';
import { expect, it } from 'vitest';
import { MEMORY_COLUMNS, openDatabaseAtVersion } from '../../../test/support/sqlite-at-version.js';
import { useTemporaryDirectories } from '../../../test/support/temporary-directories.js';
import { memoryHash } from '../../core/memory-hash.js';
import { loadTokenCounter } from '../../core/tokens/token-counter.js';
import { createLongTermServices } from '../../engine/long-term/long-term-services.js';
import { createStaticEmbeddingProvider } from '../../providers/embeddings/static-embedding-provider.js';
import { createSqliteStore } from './sqlite-store.js';

const temporaryDirectory = useTemporaryDirectories('engram-rehash-');
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const refund = { name: 'Refund', triggers: ['refund'], examples: [], steps: ['Ask for the order number'] };

interface LegacyRow {
  id: string;
  text: string;
  type: string;
  userId?: string | null;
  agentId?: string | null;
  documentId?: string | null;
  metadata?: Record<string, unknown>;
}

const rows: LegacyRow[] = [
  {
    id: 'proc',
    text: 'Refund',
    type: 'procedural',
    agentId: 'bot',
    metadata: { ...refund, status: 'approved', version: 1 },
  },
  { id: 'chunk', text: 'Anvils ship in 3 days.', type: 'semantic', agentId: 'bot', documentId: 'doc-1' },
  { id: 'episode', text: 'Ada asked for a refund.', type: 'episodic', userId: 'ada', agentId: 'bot' },
  { id: 'fact', text: 'Ada likes tea', type: 'semantic', userId: 'ada' },
];

/** A database as migration 16 left it, each row hashed as before migration 17 (AMS fields only). */
function legacyDatabase(path: string): void {
  const database = openDatabaseAtVersion(path, 16);
  const insert = database.prepare(
    `INSERT INTO memories (${MEMORY_COLUMNS})
    VALUES ('t', @id, NULL, @userId, NULL, @agentId, @documentId, NULL, @text, @type, '[]', '[]', NULL,
      @at, @at, @at, 0, 0.5, 0.8, 0, NULL, NULL, @at, NULL, @hash, @at, @metadata)`,
  );
  for (const row of rows) {
    const identity = { text: row.text, userId: row.userId ?? null, sessionId: null, namespace: null };
    insert.run({
      id: row.id,
      userId: row.userId ?? null,
      agentId: row.agentId ?? null,
      documentId: row.documentId ?? null,
      text: row.text,
      type: row.type,
      at: T0,
      hash: memoryHash({ ...identity, memoryType: row.type }),
      metadata: JSON.stringify(row.metadata ?? {}),
    });
  }
  database.close();
}

it('migration 17 rehashes owned records, so the same procedure again is a duplicate of the old one', async () => {
  const path = join(temporaryDirectory(), 'legacy.db');
  legacyDatabase(path);
  const store = await createSqliteStore({ path });
  try {
    const stored = await store.memories.getMemories(
      't',
      rows.map(({ id }) => id),
    );
    for (const record of stored) expect(record.memoryHash, record.id).toBe(memoryHash(record));
    // The AMS-only record hashed as before: its hash did not change.
    const fact = stored.find(({ id }) => id === 'fact');
    expect(fact?.memoryHash).toBe(
      memoryHash({
        text: 'Ada likes tea',
        userId: 'ada',
        sessionId: null,
        namespace: null,
        memoryType: 'semantic',
      }),
    );

    const { procedures } = createLongTermServices(
      store.memories,
      await createStaticEmbeddingProvider(),
      await loadTokenCounter('o200k_base'),
      () => new Date(T0 + 1_000),
    );
    const again = await procedures.create('t', { agentId: 'bot', ...refund });
    expect(again).toMatchObject({ id: 'proc', deduplicated: true, status: 'approved' });
    expect(await procedures.list('t', 'bot')).toHaveLength(1);
  } finally {
    await store.close();
  }
});
