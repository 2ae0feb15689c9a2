import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  conversation,
  ids,
  message,
  pendingMemory,
  sessionKey,
  sessionWrite,
} from '../../../test/conformance/fixtures.js';
import { StoreError, VersionConflictError } from '../../core/errors.js';
import type { SessionStore } from '../session-store.js';
import { applyMigrations, migrations } from './migrations.js';
import { openDatabase } from './open-database.js';
import { createSqliteStore } from './sqlite-store.js';

const directory = mkdtempSync(join(tmpdir(), 'engram-sqlite-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let files = 0;
const freshPath = (): string => {
  files += 1;
  return join(directory, `case-${files}.db`);
};

/** Milliseconds `work` takes to run `times` times. */
async function timed(times: number, work: (index: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let index = 0; index < times; index += 1) await work(index);
  return performance.now() - start;
}

describe('sqlite store', () => {
  it('keeps everything across close and reopen', async () => {
    const path = freshPath();
    const key = sessionKey();
    const first = await createSqliteStore({ path });
    expect(first.capabilities).toEqual({ durable: true, multiProcess: true });
    await first.putSession(
      key,
      sessionWrite({
        messages: conversation(),
        data: { a: 1 },
        memories: [pendingMemory('p')],
        ttlSeconds: 3600,
      }),
    );
    await first.appendMessages(key, [message('late')]);
    const before = await first.getSession(key);
    const messagesBefore = await first.readMessages(key, { order: 'oldest-first' });
    await first.close();

    const reopened = await createSqliteStore({ path });
    expect(await reopened.getSession(key)).toStrictEqual(before);
    expect(await reopened.readMessages(key, { order: 'oldest-first' })).toStrictEqual(messagesBefore);
    const { session } = await reopened.appendMessages(key, [message('after')]);
    expect(session).toMatchObject({ version: 3, lastSeq: 5 });
    await reopened.close();
  });

  it("lets two stores on one file see each other's writes and versions", async () => {
    const path = freshPath();
    const key = sessionKey();
    const left = await createSqliteStore({ path });
    const right = await createSqliteStore({ path });
    await left.appendMessages(key, [message('a')]);
    const { messages } = await right.appendMessages(key, [message('b')]);
    expect(messages[0]?.seq).toBe(2);
    await Promise.all([left.appendMessages(key, [message('c')]), right.appendMessages(key, [message('d')])]);
    expect(ids(await left.readMessages(key, { order: 'oldest-first' }))).toEqual(['a', 'b', 'c', 'd']);
    await expect(left.patchSession(key, { context: 'x' }, { expectedVersion: 2 })).rejects.toBeInstanceOf(
      VersionConflictError,
    );
    await right.close();
    expect((await left.getSession(key))?.version).toBe(4);
    await left.close();
  });

  it("sees another connection's writes, deletes and re-creations in the session revision", async () => {
    const path = freshPath();
    const key = sessionKey();
    const left = await createSqliteStore({ path });
    const right = await createSqliteStore({ path });
    await left.putSession(key, sessionWrite({ messages: [message('a')] }));
    const first = await left.sessionRevision(key);
    expect(await right.sessionRevision(key)).toBe(first);
    await right.appendMessages(key, [message('b')]);
    const second = await left.sessionRevision(key);
    expect(second).not.toBe(first);
    // Same key, same version 1 again, and the freed pk reused: the revision still differs.
    await right.deleteSession(key);
    expect(await left.sessionRevision(key)).toBeNull();
    await right.putSession(key, sessionWrite({ messages: [message('a')] }));
    expect(await left.sessionRevision(key)).not.toBe(first);
    await right.close();
    await left.close();
  });

  it('applies migrations once, whatever the number of opens', async () => {
    const path = freshPath();
    await (await createSqliteStore({ path })).close();
    await (await createSqliteStore({ path })).close();
    const database = new Database(path);
    try {
      const versions = database
        .prepare('SELECT version FROM schema_migrations ORDER BY version')
        .pluck()
        .all();
      expect(versions).toEqual(migrations.map((migration) => migration.version));
      expect(applyMigrations(database)).toBe(0);
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      database.close();
    }
    const blank = new Database(':memory:');
    expect(applyMigrations(blank)).toBe(migrations.length);
    expect(applyMigrations(blank)).toBe(0);
    blank.close();
  });

  it('refuses a database a newer engram migrated, and says to upgrade', async () => {
    const path = freshPath();
    await (await createSqliteStore({ path })).close();
    const database = new Database(path);
    database
      .prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '')")
      .run();
    database.close();
    const error = await createSqliteStore({ path }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(
      /schema is at version 999, newer than this engram's \d+.*upgrade engram/,
    );
  });

  it("keeps temporaries (a batch insert's statement journal) in memory, not in files", async () => {
    const database = await openDatabase(freshPath());
    try {
      expect(database.pragma('temp_store', { simple: true })).toBe(2);
    } finally {
      database.close();
    }
  });

  it('reports a database it cannot open as a StoreError', async () => {
    await expect(createSqliteStore({ path: directory })).rejects.toBeInstanceOf(StoreError);
  });

  it('appends and reads the newest messages at a cost independent of session length', async () => {
    const store: SessionStore = await createSqliteStore({ path: ':memory:' });
    const fill = async (sessionId: string, count: number) => {
      const batch = Array.from({ length: count }, (_, index) => message(`${sessionId}-${index}`));
      await store.putSession(sessionKey(sessionId), sessionWrite({ messages: batch }));
    };
    await fill('small', 1_000);
    await fill('large', 50_000);
    const append = (sessionId: string) => (index: number) =>
      store.appendMessages(sessionKey(sessionId), [message(`${sessionId}-new-${index}`)]);
    const read = (sessionId: string) => () =>
      store.readMessages(sessionKey(sessionId), { order: 'newest-first', limit: 20 });
    await timed(50, append('warm-up'));
    // Interleaved rounds, so a hiccup in the machine hits both sides alike.
    let small = 0;
    let large = 0;
    for (let round = 0; round < 4; round += 1) {
      small += await timed(50, (index) => append('small')(round * 50 + index));
      large += await timed(50, (index) => append('large')(round * 50 + index));
      small += await timed(50, read('small'));
      large += await timed(50, read('large'));
    }
    // Wall-clock times are never asserted, only a generous ratio within one run.
    expect(large / small).toBeLessThan(3);
    expect((await store.getSession(sessionKey('large')))?.messageCount).toBe(50_200);
    await store.close();
  });
});
