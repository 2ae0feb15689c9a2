import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { type ServeProcess, startServe } from '../support/engram-serve-process.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

/**
 * Three `engram serve` processes on one PostgreSQL database (its own schema), clients spread over
 * them: what the design promises — any server answers any turn of any session, nothing in one
 * server's memory that the others must agree with — checked from outside, over HTTP.
 */
const database = await usePostgresTestSchema('multi_server');

/** An OpenAI-compatible chat model that answers every call after `delayMs`: slow enough that a job is in flight when its server dies. */
async function startSlowModel(delayMs: number): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      setTimeout(() => {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            id: 'slow',
            object: 'chat.completion',
            created: 0,
            model: 'slow',
            choices: [
              { index: 0, message: { role: 'assistant', content: 'A summary.' }, finish_reason: 'stop' },
            ],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Answer {
  status: number;
  etag: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: test reads JSON answers loosely
  body: any;
}

describe.skipIf(database === null)('three engram servers on one PostgreSQL database', () => {
  const { url, schema } = database ?? { url: '', schema: '' };
  let servers: ServeProcess[] = [];
  let model: Awaited<ReturnType<typeof startSlowModel>>;
  const keys = { a: '', b: '' };

  beforeAll(async () => {
    // The keys live in the shared database, so every server accepts them.
    const store = await createPostgresStore({ connectionString: url, schema, poolSize: 2 });
    const apiKeys = createApiKeys(store.documents);
    keys.a = (await apiKeys.create({ tenantId: 'tenant-a', role: 'admin' })).key;
    keys.b = (await apiKeys.create({ tenantId: 'tenant-b', role: 'admin' })).key;
    await store.close();
    model = await startSlowModel(2_000);
    const environment = {
      ENGRAM_STORE_URL: `${url}?schema=${schema}`,
      ENGRAM_STORE_POOL_SIZE: '8',
      ENGRAM_JOB_LEASE_MS: '1500',
      ENGRAM_LLM_BASE_URL: model.baseUrl,
      ENGRAM_LLM_MODEL: 'slow',
    };
    servers = await Promise.all([0, 1, 2].map(() => startServe(['--auth', 'enabled'], environment)));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await model?.close();
  });

  /** One HTTP call to server `index` (mod 3) as tenant `tenant`. */
  async function call(
    index: number,
    path: string,
    options: { method?: string; body?: unknown; tenant?: 'a' | 'b'; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const server = servers[index % servers.length] as ServeProcess;
    const response = await fetch(`${server.url}${path}`, {
      method: options.method ?? 'GET',
      headers: {
        authorization: `Bearer ${keys[options.tenant ?? 'a']}`,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      etag: response.headers.get('etag'),
      body: text ? JSON.parse(text) : null,
    };
  }

  const append = (index: number, session: string, content: string, tenant: 'a' | 'b' = 'a') =>
    call(index, `/v1/working-memory/${session}/messages`, {
      method: 'POST',
      tenant,
      body: { messages: [{ role: 'user', content, created_at: '2026-01-01T00:00:00Z' }] },
    });

  const contents = async (index: number, session: string): Promise<string[]> => {
    const answer = await call(index, `/v1/working-memory/${session}`);
    expect(answer.status).toBe(200);
    return answer.body.messages.map((message: { content: string }) => message.content);
  };

  it('50 writers on three servers: every append lands once, each writer in order', async () => {
    const sessions = ['shared-0', 'shared-1', 'shared-2'];
    const perWriter = 4;
    await Promise.all(
      Array.from({ length: 50 }, async (_, writer) => {
        for (let turn = 0; turn < perWriter; turn++) {
          const answer = await append(
            writer + turn,
            sessions[writer % sessions.length] as string,
            `w${writer}-${turn}`,
          );
          expect(answer.status).toBe(200);
        }
      }),
    );
    for (const [index, session] of sessions.entries()) {
      const stored = await contents(index + 1, session);
      const writers = Array.from({ length: 50 }, (_, writer) => writer).filter(
        (writer) => writer % sessions.length === index,
      );
      expect(stored).toHaveLength(writers.length * perWriter);
      expect(new Set(stored).size).toBe(stored.length);
      for (const writer of writers) {
        const own = stored.filter((content) => content.startsWith(`w${writer}-`));
        expect(own).toEqual(Array.from({ length: perWriter }, (_, turn) => `w${writer}-${turn}`));
      }
    }
  });

  it('If-Match across servers: of concurrent edits from one version exactly one wins, the rest are 412', async () => {
    expect((await append(0, 'edited', 'first')).status).toBe(200);
    const read = await call(1, '/v1/working-memory/edited');
    const etag = read.etag as string;
    const patches = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        call(index, '/v1/working-memory/edited', {
          method: 'PATCH',
          headers: { 'if-match': etag, 'content-type': 'application/merge-patch+json' },
          body: { data: { [`editor${index}`]: true } },
        }),
      ),
    );
    expect(patches.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(patches.filter((answer) => answer.status === 412)).toHaveLength(11);
    // A PUT with the now stale tag fails on any server; with the fresh one it succeeds.
    const put = (index: number, tag: string) =>
      call(index, '/v1/working-memory/edited', {
        method: 'PUT',
        headers: { 'if-match': tag },
        body: { messages: [{ role: 'user', content: 'replaced', created_at: '2026-01-01T00:00:00Z' }] },
      });
    expect((await put(2, etag)).status).toBe(412);
    const fresh = (await call(0, '/v1/working-memory/edited')).etag as string;
    expect((await put(1, fresh)).status).toBe(200);
    expect(await contents(2, 'edited')).toEqual(['replaced']);
  });

  it('a write on one server is in the next GET on another (no stale cached answer)', async () => {
    for (let turn = 0; turn < 12; turn++) {
      // Each server has cached its own earlier answer: the write elsewhere must invalidate it.
      expect((await append(turn, 'fresh', `m${turn}`)).status).toBe(200);
      const reader = turn + 1 + (turn % 2);
      const seen = await contents(reader, 'fresh');
      expect(seen.at(-1)).toBe(`m${turn}`);
      expect(seen).toHaveLength(turn + 1);
    }
  });

  it('keeps tenants apart on every server', async () => {
    expect((await append(0, 'tenant-secret', 'only for tenant a')).status).toBe(200);
    const memory = await call(1, '/v1/long-term-memory/', {
      method: 'POST',
      body: { memories: [{ id: 'secret-memory', text: 'The vault code of tenant a is 1234' }] },
    });
    expect(memory.status).toBe(200);
    for (const index of [0, 1, 2]) {
      expect((await call(index, '/v1/working-memory/tenant-secret', { tenant: 'b' })).status).toBe(404);
      const listed = await call(index, '/v1/working-memory/', { tenant: 'b' });
      expect(listed.body.sessions).not.toContain('tenant-secret');
      const found = await call(index, '/v1/long-term-memory/search', {
        method: 'POST',
        tenant: 'b',
        body: { text: 'vault code', limit: 10 },
      });
      expect(found.status).toBe(200);
      expect(found.body.memories).toEqual([]);
      expect((await call(index, '/v1/long-term-memory/secret-memory', { tenant: 'b' })).status).toBe(404);
    }
    const own = await call(2, '/v1/long-term-memory/search', {
      method: 'POST',
      body: { text: 'vault code' },
    });
    expect(own.body.memories.map((hit: { id: string }) => hit.id)).toEqual(['secret-memory']);
  });

  it('ranks text on every server from what any server last wrote (in-process text indexes)', async () => {
    const keyword = async (index: number, text: string) => {
      const found = await call(index, '/v1/long-term-memory/search', {
        method: 'POST',
        body: { text, limit: 10, search_mode: 'keyword' },
      });
      expect(found.status).toBe(200);
      return found.body.memories.map((hit: { id: string }) => hit.id);
    };
    // Every server builds its index of the tenant first, then follows the others' writes.
    for (const index of [0, 1, 2]) expect(await keyword(index, 'marmalade')).toEqual([]);
    const created = await call(0, '/v1/long-term-memory/', {
      method: 'POST',
      body: { memories: [{ id: 'jam', text: 'Ada makes marmalade every winter' }] },
    });
    expect(created.status).toBe(200);
    for (const index of [1, 2]) expect(await keyword(index, 'marmalade')).toEqual(['jam']);
    const edited = await call(1, '/v1/long-term-memory/jam', {
      method: 'PATCH',
      body: { text: 'Ada makes quince jelly every winter' },
    });
    expect(edited.status).toBe(200);
    for (const index of [0, 2]) {
      expect(await keyword(index, 'quince')).toEqual(['jam']);
      expect(await keyword(index, 'marmalade')).toEqual([]);
    }
    expect((await call(2, '/v1/long-term-memory?memory_ids=jam', { method: 'DELETE' })).status).toBe(200);
    for (const index of [0, 1]) expect(await keyword(index, 'quince')).toEqual([]);
  });

  it('kill -9 of one server under load: every acknowledged write survives, its claimed jobs finish elsewhere', async () => {
    // Background jobs that take 2 s each (the model is slow): the victim claims the first.
    await call(0, '/v1/long-term-memory/', {
      method: 'POST',
      body: { memories: [{ id: 'fact-1', text: 'Ada likes tea', user_id: 'ada' }] },
    });
    const view = await call(0, '/v1/summary-views', {
      method: 'POST',
      body: { source: 'long_term', group_by: ['user_id'] },
    });
    expect(view.status).toBe(200);
    const victim = servers[0] as ServeProcess;
    const tasks: string[] = [];
    for (let run = 0; run < 4; run++) {
      const task = await call(0, `/v1/summary-views/${view.body.id}/run`, { method: 'POST', body: {} });
      expect(task.status).toBe(200);
      tasks.push(task.body.id);
    }
    const store = await createPostgresStore({ connectionString: url, schema, poolSize: 2 });
    try {
      const heldByVictim = async () =>
        (await store.jobs.listJobs('tenant-a', { status: 'running', limit: 100, offset: 0 })).jobs.filter(
          (job) => job.workerId?.includes(`:${victim.pid}:`),
        );
      let held = await heldByVictim();
      for (let wait = 0; held.length === 0 && wait < 100; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        held = await heldByVictim();
      }
      expect(held.length).toBeGreaterThan(0);

      // Writers append to two sessions through all three servers while the victim dies.
      const acknowledged: string[] = [];
      let stop = false;
      const writers = Array.from({ length: 12 }, async (_, writer) => {
        for (let turn = 0; !stop; turn++) {
          const content = `k${writer}-${turn}`;
          const answer = await append(writer + turn, `load-${writer % 2}`, content).catch(() => null);
          if (answer?.status === 200) acknowledged.push(content);
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await victim.kill();
      await new Promise((resolve) => setTimeout(resolve, 300));
      stop = true;
      await Promise.all(writers);
      servers = servers.slice(1);

      const stored = new Set([...(await contents(0, 'load-0')), ...(await contents(1, 'load-1'))]);
      expect(acknowledged.length).toBeGreaterThan(20);
      expect(acknowledged.filter((content) => !stored.has(content))).toEqual([]);

      // The victim's leases expire (1.5 s) and the survivors finish its jobs.
      const finished = async () =>
        Promise.all(tasks.map(async (id) => (await call(1, `/v1/tasks/${id}`)).body.status as string));
      let statuses = await finished();
      for (let wait = 0; statuses.some((status) => status !== 'success') && wait < 150; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        statuses = await finished();
      }
      expect(statuses).toEqual(tasks.map(() => 'success'));
      for (const job of held) {
        const after = await store.jobs.getJob('tenant-a', job.id);
        expect(after?.status).toBe('succeeded');
        expect(after?.attempts).toBeGreaterThan(job.attempts);
      }
    } finally {
      await store.close();
    }
  });
});

if (database === null) {
  describe.skip('three engram servers on one PostgreSQL database (PostgreSQL unreachable)', () =>
    it('needs PostgreSQL', () => {}));
}
