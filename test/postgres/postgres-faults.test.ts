import { createServer, type Server, Socket } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { StoreError, ValidationError } from '../../src/core/errors.js';
import type { SessionKey } from '../../src/core/schemas/session.js';
import { openPostgresDatabase } from '../../src/stores/postgres/postgres-database.js';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { message, rejectionOf } from '../conformance/fixtures.js';
import { failedServe, startServe } from '../support/engram-serve-process.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('faults');

/**
 * A TCP proxy in front of PostgreSQL that can be "restarted": `stop` drops every connection and
 * refuses new ones (as a database restarting does), `start` listens again on the same port.
 */
function createRestartableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const start = () =>
    new Promise<number>((resolve) => {
      server = createServer((client) => {
        const upstream = new Socket();
        sockets.add(client).add(upstream);
        upstream.connect(Number(target.port || 5432), target.hostname);
        client.pipe(upstream).pipe(client);
        for (const socket of [client, upstream]) {
          socket.on('error', () => {});
          socket.on('close', () => {
            client.destroy();
            upstream.destroy();
            sockets.delete(socket);
          });
        }
      });
      const listening = server;
      listening.listen(port, '127.0.0.1', () => {
        port = (listening.address() as { port: number }).port;
        resolve(port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server?.close(() => resolve());
    });
  return { start, stop };
}

const key = (sessionId: string): SessionKey => ({ tenantId: 't', namespace: null, userId: null, sessionId });

describe.skipIf(database === null)('PostgreSQL store faults', () => {
  const { url, schema } = database ?? { url: '', schema: '' };

  /** A connection of the test's own that holds a session row locked until `release`. */
  async function lockSession(sessionId: string) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    await client.query(`SELECT 1 FROM "${schema}".sessions WHERE session_id = $1 FOR UPDATE`, [sessionId]);
    return async () => {
      await client.query('COMMIT');
      await client.end();
    };
  }

  it('exits non-zero with a clear message when PostgreSQL is unreachable at start', async () => {
    const { code, stderr } = await failedServe(['--store', 'postgres://engram:secret@127.0.0.1:1/test']);
    expect(code).toBe(1);
    expect(stderr).toContain('store_unavailable');
    expect(stderr).toContain('Cannot open the PostgreSQL store at postgres://engram:***@127.0.0.1:1/test');
    expect(stderr).not.toContain('secret');
  });

  it('answers 503 store_unavailable while PostgreSQL restarts, then recovers without restarting engram', async () => {
    const target = new URL(url);
    const proxy = createRestartableProxy(target);
    const port = await proxy.start();
    const server = await startServe([
      '--store',
      `postgres://${target.username}@127.0.0.1:${port}${target.pathname}?schema=${schema}`,
    ]);
    const append = (content: string) =>
      fetch(`${server.url}/v1/working-memory/restart/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content, created_at: '2026-01-01T00:00:00Z' }] }),
      });
    try {
      expect((await append('before')).status).toBe(200);
      await proxy.stop();
      const down = await append('during');
      expect(down.status).toBe(503);
      expect(((await down.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
      expect((await fetch(`${server.url}/v1/working-memory/restart`)).status).toBe(503);
      await proxy.start();
      expect((await append('after')).status).toBe(200);
      const read = (await (await fetch(`${server.url}/v1/working-memory/restart`)).json()) as {
        messages: { content: string }[];
      };
      expect(read.messages.map((item) => item.content)).toEqual(['before', 'after']);
    } catch (error) {
      // The server's own account (a crash leaves its last lines here) beside the client's error.
      throw new Error(`${(error as Error).message}; engram serve stderr: ${server.stderr().slice(-2_000)}`, {
        cause: error,
      });
    } finally {
      await server.stop();
      await proxy.stop();
    }
  });

  it('survives a connection dropped between the statements of a transaction', async () => {
    const database = await openPostgresDatabase({ connectionString: url, schema });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const failure = await rejectionOf(
        database.transaction(async (client) => {
          const [row] = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          await admin.query('SELECT pg_terminate_backend($1)', [row?.pid]);
          // Idle in the transaction while the connection drops: the client emits 'error' now,
          // which crashed the process (an unhandled 'error' event) before the transaction listened.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await client.query('SELECT 1');
        }),
      );
      expect(failure).toBeInstanceOf(StoreError);
      // The dropped connection was not given back: the next query gets a working one.
      expect(await database.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await database.close();
    }
  });

  it('waits for a free connection up to acquireTimeoutMs, then fails with StoreError instead of hanging', async () => {
    const store = await createPostgresStore({
      connectionString: url,
      schema,
      poolSize: 1,
      acquireTimeoutMs: 300,
    });
    try {
      await store.appendMessages(key('busy'), [message('m1')]);
      const release = await lockSession('busy');
      // The pool's only connection now waits on the row lock.
      const blocked = store.appendMessages(key('busy'), [message('m2')]);
      const starved = await rejectionOf(store.getSession(key('other')));
      expect(starved).toBeInstanceOf(StoreError);
      expect(starved).toMatchObject({ code: 'store_unavailable' });
      expect((starved as Error).message).toContain('acquireTimeoutMs');
      await release();
      expect((await blocked).session.messageCount).toBe(2);
      expect(await store.getSession(key('other'))).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('cancels a query at statement_timeout with StoreError, and the store keeps working', async () => {
    const store = await createPostgresStore({ connectionString: url, schema, statementTimeoutMs: 300 });
    try {
      await store.appendMessages(key('slow'), [message('m1')]);
      const release = await lockSession('slow');
      const timedOut = await rejectionOf(store.appendMessages(key('slow'), [message('m2')]));
      await release();
      expect(timedOut).toBeInstanceOf(StoreError);
      expect((timedOut as Error).message).toContain('statement_timeout');
      expect((await store.appendMessages(key('slow'), [message('m2')])).session.messageCount).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('refuses text holding U+0000 as bad input (400), not as an outage (503), and keeps working', async () => {
    const store = await createPostgresStore({ connectionString: url, schema });
    try {
      const refused = await rejectionOf(
        store.appendMessages(key('nul'), [message('m1', { content: 'a\u0000b' })]),
      );
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as Error).message).toContain('U+0000');
      expect((await store.appendMessages(key('nul'), [message('m1')])).session.messageCount).toBe(1);
    } finally {
      await store.close();
    }
  });
});

if (database === null) {
  describe.skip('PostgreSQL store faults (PostgreSQL unreachable)', () => it('needs PostgreSQL', () => {}));
}
