import { describe, expect, it } from 'vitest';
import { applyMigrations } from '../../src/stores/postgres/migrations.js';
import { openPostgresDatabase } from '../../src/stores/postgres/postgres-database.js';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('migrations');

describe.skipIf(database === null)('PostgreSQL migrations', () => {
  const { url, schema, admin } = database ?? { url: '', schema: '', admin: async () => [] };

  it('migrates once when ten servers start at the same moment', async () => {
    const servers = await Promise.all(
      Array.from({ length: 10 }, () => openPostgresDatabase({ connectionString: url, schema, poolSize: 1 })),
    );
    try {
      const applied = await Promise.all(servers.map((server) => applyMigrations(server)));
      // One server applied every step; the nine others waited on the lock and found nothing to do.
      expect(applied.filter((versions) => versions.length > 0)).toEqual([[1, 2, 3, 4, 5, 6, 7, 8]]);
      const rows = await admin<{ version: number }>(
        `SELECT version FROM "${schema}".engram_migrations ORDER BY version`,
      );
      expect(rows.map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  });

  it('opens ten stores at once on the migrated schema, all usable', async () => {
    const stores = await Promise.all(
      Array.from({ length: 10 }, () => createPostgresStore({ connectionString: url, schema, poolSize: 1 })),
    );
    try {
      const key = { tenantId: 't', namespace: null, userId: null, sessionId: 's' };
      await Promise.all(
        stores.map((store, index) =>
          store.appendMessages(key, [
            {
              id: `m${index}`,
              role: 'user',
              content: `from ${index}`,
              createdAt: '2026-01-01T00:00:00.000Z',
              tokenCount: 2,
              tokenEncoding: 'o200k_base',
            },
          ]),
        ),
      );
      expect((await stores[0]?.getSession(key))?.messageCount).toBe(10);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('waits for another server’s migration past the statement timeout', async () => {
    const holder = await openPostgresDatabase({ connectionString: url, schema, poolSize: 1 });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const locked = new Promise<void>((resolve) => {
      void holder.transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `engram-migrations:${schema}`,
        ]);
        resolve();
        await held;
      });
    });
    await locked;
    const starting = createPostgresStore({
      connectionString: url,
      schema,
      poolSize: 1,
      statementTimeoutMs: 200,
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    release();
    const store = await starting;
    await store.close();
    await holder.close();
  });

  it('refuses a schema a newer engram migrated, and says to upgrade', async () => {
    await admin(`INSERT INTO "${schema}".engram_migrations (version) VALUES (999)`);
    try {
      await expect(createPostgresStore({ connectionString: url, schema, poolSize: 1 })).rejects.toThrow(
        /schema is at version 999, newer than this engram's \d+.*upgrade engram/,
      );
    } finally {
      await admin(`DELETE FROM "${schema}".engram_migrations WHERE version = 999`);
    }
  });
});

if (database === null) {
  describe.skip('PostgreSQL migrations (PostgreSQL unreachable)', () => it('needs PostgreSQL', () => {}));
}
