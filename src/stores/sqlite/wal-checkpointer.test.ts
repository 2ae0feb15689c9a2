import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './open-database.js';
import { createSqliteStore } from './sqlite-store.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startWalCheckpointer } from './wal-checkpointer.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function temporaryFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'engram-checkpoint-'));
  directories.push(directory);
  return join(directory, 'engram.db');
}

/** Resolves once the database file itself (not its WAL) has grown past `size`, or rejects after `ms`. */
async function fileGrows(path: string, size: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (statSync(path).size > size) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** About 100 new pages, written to the WAL only (well under SQLite's own 1,000-page checkpoint). */
function writePages(database: Awaited<ReturnType<typeof openDatabase>>): void {
  database.exec('CREATE TABLE IF NOT EXISTS filler (body TEXT)');
  const insert = database.prepare('INSERT INTO filler (body) VALUES (?)');
  database.transaction(() => {
    for (let row = 0; row < 100; row++) insert.run('x'.repeat(4_000));
  })();
}

describe('startWalCheckpointer', () => {
  it('copies committed pages into the database file from its own thread, and stops on close', async () => {
    const path = temporaryFile();
    const database = await openDatabase(path);
    const checkpointer = startWalCheckpointer(database, path, 20);
    expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
    const before = statSync(path).size;
    writePages(database);
    expect(await fileGrows(path, before, 5_000)).toBe(true);
    await checkpointer.close();
    await checkpointer.close();
    database.close();
  });

  it('is what checkpoints them: without it the pages stay in the WAL', async () => {
    const path = temporaryFile();
    const database = await openDatabase(path);
    const before = statSync(path).size;
    writePages(database);
    expect(await fileGrows(path, before, 300)).toBe(false);
    database.close();
  });

  it('runs for a SQLite store on a file, unless turned off', async () => {
    const path = temporaryFile();
    const store = await createSqliteStore({ path });
    const before = statSync(path).size;
    await store.appendMessages({ tenantId: 't', namespace: null, userId: 'u', sessionId: 's' }, [
      ...Array.from({ length: 50 }, (_, index) => ({
        id: `m${index}`,
        role: 'user' as const,
        content: 'y'.repeat(4_000),
        createdAt: new Date().toISOString(),
        tokenCount: 1_000,
        tokenEncoding: 'o200k_base' as const,
      })),
    ]);
    expect(await fileGrows(path, before, 5_000)).toBe(true);
    await store.close();
  });
});
