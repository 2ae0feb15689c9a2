import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MEMORY_COLUMNS, openDatabaseAtVersion } from '../../../test/support/sqlite-at-version.js';
import { useTemporaryDirectories } from '../../../test/support/temporary-directories.js';
import { memoryHash } from '../../core/memory-hash.js';
import { createSqliteStore } from './sqlite-store.js';

const temporaryDirectory = useTemporaryDirectories('engram-stable-ids-');
const MODEL = 'legacy-model@4';
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const day = (days: number): number => T0 + days * 86_400_000;
const iso = (days: number): string => new Date(day(days)).toISOString();
const CURRENT = { includeSuperseded: false };

interface LegacyRow {
  tenant?: string;
  id: string;
  text: string;
  from: number;
  to?: number | null;
  supersedes?: string | null;
  supersededBy?: string | null;
  sessionId?: string | null;
  vector?: number[];
}

/**
 * A database as the code before migration 12 left it: migrations 1–11, and memories written the
 * way that code wrote them (each edit a new row with a new id, linked by supersedes/superseded_by,
 * every row in the FTS index by trigger, one embedding per row).
 */
function legacyDatabase(path: string): void {
  const database = openDatabaseAtVersion(path, 11);
  const insert = database.prepare(
    `INSERT INTO memories (${MEMORY_COLUMNS})
    VALUES (@tenant, @id, 'app', 'ada', @sessionId, NULL, NULL, NULL, @text, 'semantic', '["home"]', '[]',
      NULL, @created, @from, @from, 2, 0.5, 0.8, 0, @supersedes, @supersededBy, @from, @to, @hash,
      @from, '{"note":"kept"}') RETURNING pk`,
  );
  const embed = database.prepare('INSERT INTO memory_embeddings (memory_pk, model, vector) VALUES (?, ?, ?)');
  const rows: LegacyRow[] = [
    {
      id: 'm1',
      text: 'Ada lives in Porto',
      from: day(0),
      to: day(10),
      supersededBy: 'm2',
      vector: [1, 0, 0, 0],
    },
    {
      id: 'm2',
      text: 'Ada lives in Lisbon',
      from: day(10),
      to: day(20),
      supersedes: 'm1',
      supersededBy: 'm3',
    },
    {
      id: 'm3',
      text: 'Ada lives in Faro',
      from: day(20),
      supersedes: 'm2',
      vector: [0, 0, 1, 0],
      sessionId: 's',
    },
    { id: 'solo', text: 'Ada plays chess', from: day(1), vector: [0, 0, 0, 1], sessionId: 's' },
    // A chain whose middle version was deleted: it stops at the gap.
    { id: 'x3', text: 'Ada owns a bike', from: day(30), supersedes: 'x2' },
    // The same ids in another tenant are other memories.
    { tenant: 'other', id: 'm3', text: 'Bob lives in Oslo', from: day(2), supersedes: 'm2' },
    { tenant: 'other', id: 'm2', text: 'Bob lives in Bergen', from: day(1), to: day(2), supersededBy: 'm3' },
  ];
  database.transaction(() => {
    database
      .prepare('INSERT INTO memory_vector_spaces (tenant_id, model, dimensions) VALUES (?, ?, 4)')
      .run('t', MODEL);
    for (const row of rows) {
      const identity = { text: row.text, userId: 'ada', sessionId: row.sessionId ?? null, namespace: 'app' };
      const { pk } = insert.get({
        tenant: row.tenant ?? 't',
        id: row.id,
        text: row.text,
        sessionId: row.sessionId ?? null,
        created: day(0),
        from: row.from,
        to: row.to ?? null,
        supersedes: row.supersedes ?? null,
        supersededBy: row.supersededBy ?? null,
        hash: memoryHash({ ...identity, memoryType: 'semantic' }),
      }) as { pk: number };
      if (row.vector) embed.run(pk, MODEL, Buffer.from(Float32Array.from(row.vector).buffer));
    }
  })();
  database.close();
}

describe('migration 12: stable memory ids', () => {
  it('folds version chains into the history of their current row, losing nothing', async () => {
    const path = join(temporaryDirectory(), 'legacy.db');
    legacyDatabase(path);
    const store = await createSqliteStore({ path });
    try {
      const { memories } = store;
      const [current] = await memories.getMemories('t', ['m3']);
      expect(current).toMatchObject({
        id: 'm3',
        text: 'Ada lives in Faro',
        version: 3,
        writtenBy: 'api',
        validFrom: iso(20),
        validTo: null,
        topics: ['home'],
        metadata: { note: 'kept' },
        accessCount: 2,
        embeddingModel: MODEL,
      });
      const history = (await memories.memoryHistory('t', 'm3')).versions;
      expect(
        history.map((version) => [version.version, version.text, version.validFrom, version.validTo]),
      ).toEqual([
        [3, 'Ada lives in Faro', iso(20), null],
        [2, 'Ada lives in Lisbon', iso(10), iso(20)],
        [1, 'Ada lives in Porto', iso(0), iso(10)],
      ]);
      expect(history.every((version) => version.id === 'm3' && version.topics[0] === 'home')).toBe(true);

      // The ids clients held still lead to the current row; nothing was deleted.
      const closed = await memories.getMemories('t', ['m1', 'm2']);
      expect(closed.map((record) => [record.id, record.supersededBy, record.validTo])).toEqual([
        ['m1', 'm2', iso(10)],
        ['m2', 'm3', iso(20)],
      ]);
      const all = await memories.listMemories('t', { includeSuperseded: true }, { limit: 10, offset: 0 });
      expect(all.total).toBe(5);

      // Search sees current rows only, by text and by vector, and the broken chain is version 1.
      expect(await memories.searchText('t', 'Porto', CURRENT, 10)).toEqual([]);
      expect((await memories.searchText('t', 'Faro', CURRENT, 10)).map((hit) => hit.id)).toEqual(['m3']);
      const near = await memories.searchVector('t', Float32Array.from([0, 0, 1, 0]), MODEL, CURRENT, 1);
      expect(near).toMatchObject([{ id: 'm3', distance: 0 }]);
      const chess = await memories.searchVector('t', Float32Array.from([0, 0, 0, 1]), MODEL, CURRENT, 1);
      expect(chess[0]?.id).toBe('solo');
      expect((await memories.findUnembedded('t', MODEL, 10)).map((row) => row.id)).toEqual(['x3']);
      expect((await memories.getMemories('t', ['solo', 'x3'])).map((record) => record.version)).toEqual([
        1, 1,
      ]);
      const [neighbors] = await memories.sessionNeighbors('t', ['m3'], CURRENT, 2);
      expect(neighbors).toMatchObject({ before: [], after: ['solo'] });
      // Another tenant's chain under the same ids is its own.
      expect((await memories.memoryHistory('other', 'm3')).versions.map((version) => version.text)).toEqual([
        'Bob lives in Oslo',
        'Bob lives in Bergen',
      ]);

      // The migrated memory goes on versioning in place under its id.
      const { memoryHash: _hash, ...fields } = current as NonNullable<typeof current>;
      const next = await memories.updateMemory('t', 'm3', {
        ...fields,
        text: 'Ada lives in Braga',
        memoryHash: memoryHash({
          text: 'Ada lives in Braga',
          userId: 'ada',
          sessionId: 's',
          namespace: 'app',
          memoryType: 'semantic',
        }),
        validFrom: iso(40),
        updatedAt: iso(40),
        writtenBy: 'agent',
        embedding: { model: MODEL, vector: Float32Array.from([0, 1, 0, 0]) },
      });
      expect(next).toMatchObject({ id: 'm3', version: 4, text: 'Ada lives in Braga', createdAt: iso(0) });
      expect((await memories.memoryHistory('t', 'm3')).versions.map((version) => version.version)).toEqual([
        4, 3, 2, 1,
      ]);
      expect((await memories.searchText('t', 'Braga', CURRENT, 10)).map((hit) => hit.id)).toEqual(['m3']);
      expect(await memories.searchText('t', 'Faro', CURRENT, 10)).toEqual([]);
      // A duplicate of a migrated record is still found by its (unchanged, AMS-compatible) hash.
      const [solo] = await memories.getMemories('t', ['solo']);
      const copy = await memories.insertMemories('t', [
        { ...(solo as NonNullable<typeof solo>), id: 'solo-copy', embedding: null },
      ]);
      expect(copy.duplicates.map((duplicate) => duplicate.existing.id)).toEqual(['solo']);
    } finally {
      await store.close();
    }
  });

  it('opens an empty legacy database and one already migrated', async () => {
    const path = join(temporaryDirectory(), 'empty.db');
    openDatabaseAtVersion(path, 11).close();
    for (let round = 0; round < 2; round++) {
      const store = await createSqliteStore({ path });
      expect(await store.memories.countMemories('t', CURRENT)).toBe(0);
      await store.close();
    }
  });
});
