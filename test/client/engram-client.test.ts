import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  type ContextBody,
  createEngramClient,
  type EngramClient,
  EngramClientError,
  entityTag,
  type ListSessionsQuery,
  versionOfEntityTag,
  type WorkingMemory,
} from '../../src/client/index.js';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import { useTestServer } from '../http/test-server.js';

const fast = { baseDelayMs: 1, maxDelayMs: 50 };

/** The thrown EngramClientError of a call that must fail. */
async function failure(call: Promise<unknown>): Promise<EngramClientError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(EngramClientError);
  return error as EngramClientError;
}

describe('engram/client against a live server', () => {
  const server = useTestServer();
  let client: EngramClient;
  /** `METHOD /path` of every request the client sent, to check it covers every route. */
  const sent: string[] = [];
  const recordingFetch: typeof fetch = (input, init) => {
    sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
    return fetch(input, init);
  };
  beforeAll(() => {
    client = createEngramClient({ baseUrl: server().url, retry: fast, fetch: recordingFetch });
  });

  it('types requests and answers from the server’s zod schemas', () => {
    expectTypeOf<ContextBody['format']>().toEqualTypeOf<'openai' | 'anthropic' | 'neutral' | undefined>();
    expectTypeOf<ContextBody>().toHaveProperty('session_id').toEqualTypeOf<string>();
    expectTypeOf<WorkingMemory>().toHaveProperty('messages');
    expectTypeOf<ListSessionsQuery>().toHaveProperty('limit');
  });

  it('sessions: append, read with its ETag, conditional patch, list, end and delete', async () => {
    const appended = await client.sessions.append(
      'client-1',
      { messages: [{ role: 'user', content: 'My order #1234 arrived damaged.' }] },
      { user_id: 'ada' },
    );
    expect(appended.value.session).toMatchObject({
      session_id: 'client-1',
      user_id: 'ada',
      message_count: 1,
    });
    expect(versionOfEntityTag(appended.etag)).toBe(appended.value.session.version);

    const read = await client.sessions.getTagged('client-1', { user_id: 'ada' });
    expect(read.value.messages.map((message) => message.content)).toEqual([
      'My order #1234 arrived damaged.',
    ]);
    expect(read.etag).toBe(appended.etag);

    const patched = await client.sessions.patch(
      'client-1',
      { data: { plan: 'gold' } },
      { user_id: 'ada' },
      {
        ifMatch: read.etag,
      },
    );
    expect(patched.value.data).toEqual({ plan: 'gold' });
    const stale = await failure(
      client.sessions.patch(
        'client-1',
        { data: { plan: 'free' } },
        { user_id: 'ada' },
        { ifMatch: read.etag },
      ),
    );
    expect(stale).toMatchObject({
      status: 412,
      code: 'precondition_failed',
      category: 'precondition_failed',
    });

    const updated = await client.sessions.update(
      'client-1',
      (session) => ({ data: { visits: Number(session.data?.visits ?? 0) + 1 } }),
      { user_id: 'ada' },
    );
    expect(updated.value.data).toEqual({ plan: 'gold', visits: 1 });

    const put = await client.sessions.put('client-2', { messages: [{ role: 'user', content: 'hi' }] });
    expect(put.value.messages).toHaveLength(1);
    expect((await client.sessions.list()).sessions).toEqual(expect.arrayContaining(['client-1', 'client-2']));
    const keyed = await client.sessions.listSummaries({ user_id: 'ada' });
    expect(keyed.sessions.map(({ session_id, user_id }) => ({ session_id, user_id }))).toEqual([
      { session_id: 'client-1', user_id: 'ada' },
    ]);
    expect(keyed.total).toBe(1);
    const ended = await client.sessions.end('client-1', {}, { user_id: 'ada' });
    expect(ended).toMatchObject({ session_id: 'client-1', through_seq: expect.any(Number) });
    expect((await client.tasks.get(ended.task?.id ?? '')).id).toBe(ended.task?.id);
    expect(await client.sessions.delete('client-2')).toEqual({ status: 'ok' });
    // An AMS route answers {"detail"}: the code comes from the status.
    const missing = await failure(client.sessions.get('client-2'));
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('long-term memory: create, search, get, edit, delete; the memory prompt', async () => {
    expect(
      await client.longTermMemory.create({
        memories: [{ id: 'm-1', text: 'Ada prefers replacements over refunds', user_id: 'ada' }],
      }),
    ).toEqual({ status: 'ok' });
    const found = await client.longTermMemory.search({ text: 'replacement', user_id: { eq: 'ada' } });
    expect(found.memories.map((memory) => memory.id)).toContain('m-1');
    // An edit keeps the id and writes the memory's next version; the prior one stays in its history.
    const edited = await client.longTermMemory.edit('m-1', { text: 'Ada prefers replacements' });
    expect(edited.id).toBe('m-1');
    expect((await client.longTermMemory.get('m-1')).text).toBe('Ada prefers replacements');
    const history = await client.longTermMemory.history('m-1');
    expect(history.id).toBe('m-1');
    expect(history.versions.map((version) => [version.version, version.text])).toEqual([
      [2, 'Ada prefers replacements'],
      [1, 'Ada prefers replacements over refunds'],
    ]);
    expect((await client.longTermMemory.history('m-1', { limit: 1 })).versions).toHaveLength(1);
    const prompt = await client.memoryPrompt({
      query: 'What does Ada prefer?',
      session: { session_id: 'client-1' },
    });
    expect(prompt.messages.length).toBeGreaterThan(0);
    expect(await client.longTermMemory.delete({ memory_ids: [edited.id] })).toMatchObject({
      status: expect.any(String),
    });
    expect(await client.longTermMemory.compact({ user_id: 'ada' })).toMatchObject({
      status: expect.any(String),
    });
    const forgotten = await client.longTermMemory.forget({ policy: { max_age_days: 365 } });
    expect(forgotten).toMatchObject({ dry_run: true });
  });

  it('summary views: create, list, get, partitions, run and delete', async () => {
    const view = await client.summaryViews.create({ source: 'long_term', group_by: ['user_id'] });
    expect((await client.summaryViews.list()).map((item) => item.id)).toContain(view.id);
    expect((await client.summaryViews.get(view.id)).group_by).toEqual(['user_id']);
    expect(await client.summaryViews.partitions(view.id)).toEqual([]);
    // Summarizing needs an LLM: the typed error says so.
    const partition = await failure(client.summaryViews.runPartition(view.id, { group: { user_id: 'ada' } }));
    expect(partition.status).toBeGreaterThanOrEqual(400);
    const runs = () => sent.filter((request) => request.endsWith('/run')).length;
    const before = runs();
    const run = await failure(client.summaryViews.run(view.id));
    expect(run).toMatchObject({ status: 503, code: 'unavailable' });
    // A POST's 503 that does not say it was refused before any work is not sent again.
    expect(runs() - before).toBe(1);
    expect(await client.summaryViews.delete(view.id)).toMatchObject({ status: expect.any(String) });
  });

  it('agents (ETag, If-Match), knowledge, procedures, context and the working set', async () => {
    const created = await client.agents.create({ id: 'support', system_prompt: 'You are Acme support.' });
    expect(created.etag).toBe(entityTag(created.value.version));
    const updated = await client.agents.update(
      'support',
      { system_prompt: 'You help Acme customers.' },
      {
        ifMatch: created.etag,
      },
    );
    expect(updated.value.version).toBe(created.value.version + 1);
    expect(
      (await failure(client.agents.update('support', { system_prompt: 'x' }, { ifMatch: created.etag })))
        .code,
    ).toBe('precondition_failed');
    expect((await client.agents.list()).agents.map((agent) => agent.id)).toContain('support');

    const document = await client.knowledge.upload('support', {
      name: 'Returns.md',
      content: '# Returns\nReplaced free.',
    });
    expect((await client.knowledge.list('support')).documents).toEqual([document]);
    const chunks = await client.knowledge.chunks('support', document.document_id);
    expect(chunks.total).toBe(1);
    expect(chunks.chunks[0]?.text).toContain('Replaced free.');
    const proposed = await client.procedures.propose('support', {
      name: 'Damaged',
      triggers: ['damaged'],
      steps: ['Apologize'],
    });
    const edited = await client.procedures.update('support', proposed.id, {
      steps: ['Apologize', 'Replace'],
    });
    expect((await client.procedures.get('support', edited.id)).steps).toEqual(['Apologize', 'Replace']);
    const other = await client.procedures.propose('support', { name: 'Other', steps: ['Wave'] });
    expect((await client.procedures.reject('support', other.id)).status).toBe('rejected');
    const approved = await client.procedures.approve('support', edited.id);
    expect(approved.status).toBe('approved');
    expect(
      (await client.procedures.list('support', { status: 'approved' })).procedures.map((p) => p.id),
    ).toEqual([approved.id]);

    const context = await client.context({
      agent_id: 'support',
      session_id: 'client-1',
      user_id: 'ada',
      message: 'Hello',
    });
    expect(context.agent).toEqual({ id: 'support', version: updated.value.version });
    expect(context.trace.sections.map((section) => section.name)).toContain('history');
    const preview = await client.previewContext({
      agent_id: 'support',
      session_id: 'client-1',
      user_id: 'ada',
      message: 'Hello',
    });
    expect(preview.messages).toEqual(context.messages);
    const traces = await client.sessions.traces('client-1', { user_id: 'ada' });
    expect(traces.traces[0]?.agent_id).toBe('support');
    const set = await client.sessions.workingSet('client-1', { query: 'refund', user_id: 'ada' });
    expect(set.session_id).toBe('client-1');
    expect(
      (await client.sessions.updateWorkingSet('client-1', { remove: ['x'] }, { user_id: 'ada' })).removed,
    ).toEqual(['x']);

    expect(await client.knowledge.delete('support', document.document_id)).toEqual({ deleted_chunks: 1 });
    await client.procedures.delete('support', approved.id);
    await client.agents.delete('support');
    expect((await failure(client.agents.get('support'))).code).toBe('not_found');
  });

  it('a large knowledge upload answers 202 with a task; jobs list the background work', async () => {
    await client.agents.create({ id: 'library' });
    const section = '## Returns\nDamaged items are replaced free within 30 days of delivery.\n\n';
    const upload = await client.knowledge.upload('library', {
      name: 'Handbook.md',
      content: `# Handbook\n\n${section.repeat(Math.ceil(100_001 / section.length))}`,
    });
    if (!('task_id' in upload)) throw new Error('expected a background upload (202)');
    expect(upload).toMatchObject({ status: 'pending', agent_id: 'library', name: 'Handbook.md' });
    const task = await vi.waitFor(
      async () => {
        const current = await client.tasks.get(upload.task_id);
        if (current.status !== 'success' && current.status !== 'failed') throw new Error(current.status);
        return current;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(task.status).toBe('success');
    expect(
      (await client.knowledge.chunks('library', upload.document_id, { limit: 2 })).total,
    ).toBeGreaterThan(1);
    const { jobs, total } = await client.jobs.list({ limit: 200 });
    expect(total).toBeGreaterThanOrEqual(jobs.length);
    expect(jobs.map((job) => job.status)).toContain('succeeded');
    await client.agents.delete('library');
  });

  it('system routes, the OpenAPI document, and chat errors with their code', async () => {
    expect((await client.health()).now).toEqual(expect.any(Number));
    expect(await client.whoami()).toMatchObject({ role: 'admin', authentication: false });
    expect(await client.ready()).toEqual({ status: 'ready' });
    expect(await client.metrics()).toContain('# HELP');
    expect(Object.keys((await client.openApi()).paths)).toContain('/v1/context');
    const chats = () => sent.filter((request) => request.endsWith('/chat')).length;
    const before = chats();
    const chat = await failure(client.chat('client-1', { message: 'hi' }));
    expect(chat).toMatchObject({ status: 503, code: 'llm_not_configured', category: 'unavailable' });
    // No retry can configure an LLM: the 503 is thrown at once.
    expect(chats() - before).toBe(1);
    const invalid = await failure(client.context({ session_id: '', message: 'x' }));
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
  });

  it('has a method for every route of /openapi.json (MCP and the /docs and /ui pages aside)', async () => {
    const { paths } = await client.openApi();
    const routes = Object.entries(paths).flatMap(([path, operations]) =>
      Object.keys(operations as object).map((method) => ({ method: method.toUpperCase(), path })),
    );
    const missing = routes
      // The API reference and the Memory Browser are pages for a browser, not API routes.
      .filter(({ path }) => path !== '/mcp' && !path.startsWith('/docs') && !/^\/ui(\/|$)/.test(path))
      // AMS's trailing-slash twins are the same operations.
      .filter(({ path }) => !path.endsWith('/') || path === '/')
      .filter(({ method, path }) => {
        const pattern = new RegExp(`^${method} ${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        return !sent.some((request) => pattern.test(request));
      });
    expect(missing).toEqual([]);
  });

  it('retries 429 and 503 as Retry-After says, a bounded number of times', async () => {
    const proxy = await startFlakyProxy(server().url, ['429', '503']);
    try {
      const patient = createEngramClient({ baseUrl: proxy.url, retry: { ...fast, maxRetries: 2 } });
      expect((await patient.health()).now).toEqual(expect.any(Number));
      expect(proxy.seen()).toEqual([429, 503, 200]);

      proxy.failNext(['503', '503', '503']);
      const impatient = createEngramClient({ baseUrl: proxy.url, retry: { ...fast, maxRetries: 1 } });
      expect(await failure(impatient.health())).toMatchObject({ status: 503, code: 'unavailable' });
      const never = createEngramClient({ baseUrl: proxy.url, retry: false });
      expect((await failure(never.health())).status).toBe(503);
    } finally {
      await proxy.close();
    }
  });
});

describe('engram/client with authentication', () => {
  const server = useTestServer({ auth: { mode: 'enabled' } });

  it('sends the API key, and surfaces 401 and 403 with their codes', async () => {
    const keys = createApiKeys(server().engram.store.documents);
    const { key } = await keys.create({ tenantId: 'acme', role: 'inspector' });
    const inspector = createEngramClient({ baseUrl: server().url, apiKey: key });
    expect((await inspector.sessions.list()).sessions).toEqual([]);
    expect(
      await failure(inspector.longTermMemory.create({ memories: [{ id: 'no', text: 'no' }] })),
    ).toMatchObject({
      status: 403,
    });
    const anonymous = createEngramClient({ baseUrl: server().url });
    expect((await failure(anonymous.sessions.list())).status).toBe(401);
  });
});

/**
 * A proxy in front of the live server that answers the next statuses itself (with `Retry-After: 0`)
 * and forwards everything else; `seen()` lists the statuses it answered, in order.
 */
async function startFlakyProxy(target: string, failures: string[]) {
  const queue = [...failures];
  const seen: number[] = [];
  const proxy: Server = createHttpServer(async (request, response) => {
    const next = queue.shift();
    if (next) {
      seen.push(Number(next));
      response.writeHead(Number(next), { 'retry-after': '0', 'content-type': 'application/json' });
      response.end(JSON.stringify({ detail: 'try again' }));
      return;
    }
    const answer = await fetch(`${target}${request.url}`, { method: request.method });
    seen.push(answer.status);
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    response.end(await answer.text());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    seen: () => seen,
    failNext: (statuses: string[]) => queue.push(...statuses),
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}
