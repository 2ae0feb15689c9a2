import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { message, rejectionOf, sessionKey, sessionWrite } from '../../../test/conformance/fixtures.js';
import { StoreError, ValidationError, VersionConflictError } from '../../core/errors.js';
import type { NewMessage } from '../../core/schemas/message.js';
import { encodeMessages } from '../../engine/sessions/prepare-session-write.js';
import type { EngramStore } from '../engram-store.js';
import { JobLeaseLostError } from '../job-store.js';
import { createSqliteStore } from '../sqlite/sqlite-store.js';
import { createStoreThread } from './store-thread.js';
import { createWorkerStore } from './worker-store.js';

const thread = createStoreThread();
const directory = mkdtempSync(join(tmpdir(), 'engram-worker-store-'));
let files = 0;
const newFile = () => join(directory, `store-${++files}.db`);
const openInThread = (path = newFile()) => thread.open({ driver: 'sqlite', options: { path } });

afterAll(async () => {
  await thread.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Whether a 0 ms timer set right after `start()` returns fires before its promise settles. */
async function timerFiresFirst(start: () => Promise<unknown>): Promise<boolean> {
  const settled = start().then(() => 'store' as const);
  const timer = new Promise<'timer'>((resolve) => setTimeout(() => resolve('timer'), 0));
  return (await Promise.race([settled, timer])) === 'timer' && (await settled) === 'store';
}

const manyMessages = (count: number) => Array.from({ length: count }, (_, index) => message(`m${index}`));

describe('a store in a store thread', () => {
  it('leaves the calling thread free while a long write runs', async () => {
    // 50,000 rows in one SQLite transaction: hundreds of milliseconds of synchronous work.
    const write = sessionWrite({ messages: manyMessages(50_000) });
    const threaded = await openInThread();
    const inProcess = await createSqliteStore({ path: newFile() });
    try {
      expect(await timerFiresFirst(() => threaded.putSession(sessionKey(), write))).toBe(true);
      // The same write in process holds the thread until it is done: the timer waits for it.
      expect(await timerFiresFirst(() => inProcess.putSession(sessionKey(), write))).toBe(false);
    } finally {
      await threaded.close();
      await inProcess.close();
    }
  });

  it('runs calls in the order they were made, a large one included', async () => {
    const store = await openInThread();
    try {
      // The PUT's 5,000 messages are sent in chunks; the append made after it must still run after it.
      const put = store.putSession(sessionKey(), sessionWrite({ messages: manyMessages(5_000) }));
      const append = store.appendMessages(sessionKey(), [message('after')]);
      await Promise.all([put, append]);
      const stored = await store.readMessages(sessionKey(), { order: 'oldest-first' });
      expect(stored).toHaveLength(5_001);
      expect(stored.map((item) => item.id)).toEqual([...manyMessages(5_000).map((item) => item.id), 'after']);
    } finally {
      await store.close();
    }
  });

  it('takes messages encoded elsewhere and moves their buffers instead of copying them', async () => {
    const store = await openInThread();
    try {
      expect(store.capabilities.encodedMessages).toBe(true);
      const messages = manyMessages(5_000);
      const transfer: ArrayBuffer[] = [];
      const encoded = await encodeMessages(messages, transfer);
      expect(transfer.length).toBeGreaterThan(0);
      const write = { ...sessionWrite({}), messages: encoded.items as NewMessage[] };
      const put = store.putSession(sessionKey(), write);
      // Moved to the store thread with the call: nothing left here to copy or collect.
      expect(transfer.every((buffer) => buffer.byteLength === 0)).toBe(true);
      expect((await put).lastSeq).toBe(5_000);
      const stored = await store.readMessages(sessionKey(), { order: 'oldest-first' });
      expect(stored.map((item) => item.id)).toEqual(messages.map((item) => item.id));
    } finally {
      await store.close();
    }
  });

  it('rejects with the error class, code and details the driver threw', async () => {
    const store = await openInThread();
    try {
      await store.appendMessages(sessionKey(), [message('a')]);
      const conflict = await rejectionOf(
        store.patchSession(sessionKey(), { dataPatch: {} }, { expectedVersion: 7 }),
      );
      expect(conflict).toBeInstanceOf(VersionConflictError);
      expect(conflict).toMatchObject({
        code: 'version_conflict',
        httpStatus: 409,
        details: { expected: 7, actual: 1 },
      });
      const invalid = await rejectionOf(
        store.listIdleSessions({ updatedBefore: 'x', after: '[1]', limit: 1 }),
      );
      expect(invalid).toBeInstanceOf(ValidationError);
      expect(invalid).toMatchObject({ code: 'validation_failed', issues: [] });
      await store.jobs.enqueue('t', { id: 'job-1', type: 'work', payload: {}, maxAttempts: 1 });
      const claimed = await store.jobs.claim('worker-1', 60_000);
      const lease = { tenantId: 't', id: 'job-1', workerId: 'worker-2', attempt: claimed?.attempts ?? 0 };
      const lost = await rejectionOf(store.jobs.heartbeat(lease, 1_000));
      expect(lost).toBeInstanceOf(JobLeaseLostError);
      expect(lost).toMatchObject({ code: 'job_lease_lost', details: lease });
    } finally {
      await store.close();
    }
  });

  it('answers sessionRevision in the calling thread with every write made through the store thread', async () => {
    const path = newFile();
    const store = await openInThread(path);
    const other = await createSqliteStore({ path });
    try {
      expect(await store.sessionRevision(sessionKey())).toBeNull();
      const { session } = await store.appendMessages(sessionKey(), [message('a')]);
      const afterAppend = await store.sessionRevision(sessionKey());
      expect(afterAppend).toMatch(new RegExp(`\\.${session.version}$`));
      await other.appendMessages(sessionKey(), [message('b')]);
      expect(await store.sessionRevision(sessionKey())).not.toBe(afterAppend);
      expect(await store.sessionRevision(sessionKey())).toBe(await other.sessionRevision(sessionKey()));
    } finally {
      await store.close();
      await other.close();
    }
  });

  it('rejects an argument it cannot copy instead of hanging', async () => {
    const store = await openInThread();
    try {
      const key = { ...sessionKey(), extra: () => 1 };
      expect(await rejectionOf(store.getSession(key))).toMatchObject({ name: 'DataCloneError' });
      expect(await store.getSession(sessionKey())).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('rejects every call after close, and closes once', async () => {
    const store = await openInThread();
    await Promise.all([store.close(), store.close()]);
    expect(await rejectionOf(store.getSession(sessionKey()))).toBeInstanceOf(StoreError);
    expect(await rejectionOf(store.sessionRevision(sessionKey()))).toBeInstanceOf(StoreError);
    expect(await rejectionOf(store.memories.countMemories('t', { includeSuperseded: false }))).toBeInstanceOf(
      StoreError,
    );
  });

  it('fails calls in flight with StoreError when its thread stops', async () => {
    const stops: StoreError[] = [];
    const own = createStoreThread({ onStop: (error) => stops.push(error) });
    const store = await own.open({ driver: 'sqlite', options: { path: newFile() } });
    const inFlight = rejectionOf(
      store.putSession(sessionKey(), sessionWrite({ messages: manyMessages(20_000) })),
    );
    await own.close();
    const error = await inFlight;
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'store_unavailable', message: 'The store thread is closed' });
    expect(stops).toEqual([]); // closed on purpose: not reported
    expect(await rejectionOf(store.getSession(sessionKey()))).toBeInstanceOf(StoreError);
  });

  it('reports a thread that stops unexpectedly once, and fails the calls in flight', async () => {
    const stops: StoreError[] = [];
    const store = await createWorkerStore({
      driver: 'memory',
      options: {},
      // A small heap, then a write far too large for it: the thread runs out of memory.
      resourceLimits: { maxOldGenerationSizeMb: 64 },
      onStop: (error) => stops.push(error),
    });
    const content = 'x'.repeat(1_000);
    const messages = Array.from({ length: 200_000 }, (_, index) =>
      message(`big-${index}`, { content: `${content}${index}` }),
    );
    const error = await rejectionOf(store.putSession(sessionKey(), sessionWrite({ messages })));
    expect(error).toBeInstanceOf(StoreError);
    expect(stops).toHaveLength(1);
    expect(stops[0]?.message).toMatch(/memory limit/);
    expect(await rejectionOf(store.getSession(sessionKey()))).toBeInstanceOf(StoreError);
    await store.close();
    expect(stops).toHaveLength(1);
  });

  it('rejects like the driver when the file cannot be opened', async () => {
    const blocker = join(directory, 'a-file');
    writeFileSync(blocker, 'not a directory');
    const path = join(blocker, 'x.db');
    const error = await rejectionOf(createWorkerStore({ driver: 'sqlite', options: { path } }));
    const inProcess = (await rejectionOf(createSqliteStore({ path }))) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: inProcess.name, message: inProcess.message });
  });

  it('does not keep the process alive once idle', () => {
    // A script that opens a store, writes once and never closes it must still exit by itself.
    const script = join(directory, 'idle.mts');
    const workerStore = fileURLToPath(new URL('./worker-store.ts', import.meta.url));
    writeFileSync(
      script,
      `import { createWorkerStore } from ${JSON.stringify(workerStore)};
const store = await createWorkerStore({ driver: 'sqlite', options: { path: ${JSON.stringify(newFile())} } });
await store.documents.putDocument('t', 'c', 'd', { ok: true });
console.log('written');`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stdout).toContain('written');
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
  });
});

describe('createWorkerStore', () => {
  it('opens the memory driver too, and stops its thread on close', async () => {
    const store: EngramStore = await createWorkerStore({ driver: 'memory', options: {} });
    expect(store.driver).toBe('memory');
    await store.appendMessages(sessionKey(), [message('a')]);
    expect(
      (await store.readMessages(sessionKey(), { order: 'oldest-first' })).map((item) => item.id),
    ).toEqual(['a']);
    await store.close();
    expect(await rejectionOf(store.getSession(sessionKey()))).toBeInstanceOf(StoreError);
  });

  it('leaves everything written in the database file on close: a copy of it alone holds the data', async () => {
    const path = newFile();
    const store = await openInThread(path);
    await store.appendMessages(sessionKey(), [message('kept')]);
    await store.close();
    // A backup by `cp engram.db` after a clean stop: without the WAL beside it.
    const copy = `${path}.copy`;
    copyFileSync(path, copy);
    const reopened = await createSqliteStore({ path: copy });
    expect((await reopened.getSession(sessionKey()))?.messageCount).toBe(1);
    await reopened.close();
  });
});
