import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import { createEngram, type Engram } from '../../src/engram.js';
import { createOpenAIChatProvider } from '../../src/providers/llm/openai-chat-provider.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../support/scripted-openai-server.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';
import { useTestServer } from './test-server.js';

const temporaryDirectory = useTemporaryDirectories('engram-summary-views-');
let llm: ScriptedOpenAIServer;
let engram: Engram;
let server: EngramServer;
let url: string;
const keys: Record<'a' | 'b', string> = { a: '', b: '' };
/** A server without an LLM (auth off). */
const plain = useTestServer();

beforeAll(async () => {
  llm = await startScriptedOpenAIServer();
  const store = await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db') });
  engram = await createEngram({
    store,
    sweepIntervalMs: 0,
    defaultSources: false,
    llm: createOpenAIChatProvider({ baseUrl: llm.baseUrl, model: 'scripted-model' }),
    jobs: { minPollMs: 5, maxPollMs: 20, retry: { baseDelayMs: 1, maxDelayMs: 5 }, defaultMaxAttempts: 2 },
  });
  const apiKeys = createApiKeys(engram.store.documents);
  keys.a = (await apiKeys.create({ tenantId: 'tenant-a', role: 'admin' })).key;
  keys.b = (await apiKeys.create({ tenantId: 'tenant-b', role: 'admin' })).key;
  server = createServer({ engram, config: { port: 0, logLevel: 'silent', auth: { mode: 'enabled' } } });
  ({ url } = await server.listen());
});
afterAll(async () => {
  await server.close();
  await llm.close();
});

type Body = Record<string, unknown> & { detail?: unknown };
const call = async (path: string, method = 'GET', body?: unknown, tenant: 'a' | 'b' = 'a') => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${keys[tenant]}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Body };
};
const createView = async (view: Record<string, unknown>, tenant: 'a' | 'b' = 'a') => {
  const created = await call('/v1/summary-views', 'POST', { source: 'long_term', ...view }, tenant);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.id as string;
};
const finishedTask = async (id: string) => {
  for (let tries = 0; tries < 1_000; tries++) {
    const { body } = await call(`/v1/tasks/${id}`);
    if (body.status === 'success' || body.status === 'failed') return body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Task ${id} did not finish`);
};

beforeAll(async () => {
  const memories = [
    { id: 'a1', text: 'Alice drinks green tea.', user_id: 'alice', namespace: 'shop' },
    { id: 'a2', text: 'Alice lives in Porto.', user_id: 'alice', namespace: 'shop' },
    { id: 'a3', text: 'Alice once had a dog.', user_id: 'alice', created_at: '2020-01-01T00:00:00Z' },
    { id: 'b1', text: 'Bob prefers window seats.', user_id: 'bob', namespace: 'travel' },
    { id: 'n1', text: 'Nobody owns this fact.' },
  ];
  expect((await call('/v1/long-term-memory/', 'POST', { memories })).status).toBe(200);
  const other = [{ id: 'x1', text: 'Tenant B: Alice is someone else here.', user_id: 'alice' }];
  expect((await call('/v1/long-term-memory/', 'POST', { memories: other }, 'b')).status).toBe(200);
});

describe('summary view definitions', () => {
  it('creates, reads, lists and deletes views in the AMS shape', async () => {
    const created = await call('/v1/summary-views', 'POST', {
      name: 'by user',
      source: 'long_term',
      group_by: ['user_id', 'user_id'],
      filters: { namespace: 'shop', topics: 'tea', event_date: { gte: '2025-01-01' } },
      time_window_days: '30',
      model_name: 'ignored-model',
      unknown: 'ignored',
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'by user',
      source: 'long_term',
      group_by: ['user_id'],
      filters: { namespace: 'shop', topics: ['tea'], event_date: { gte: '2025-01-01T00:00:00Z' } },
      time_window_days: 30,
      continuous: false,
      prompt: null,
      model_name: 'ignored-model',
    });
    const id = created.body.id as string;
    expect((await call(`/v1/summary-views/${id}`)).body).toEqual(created.body);
    expect((await call('/v1/summary-views')).body).toContainEqual(created.body);
    expect(await call(`/v1/summary-views/${id}`, 'DELETE')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await call(`/v1/summary-views/${id}`)).toEqual({
      status: 404,
      body: { detail: `SummaryView ${id} not found` },
    });
    expect(await call(`/v1/summary-views/${id}`, 'DELETE')).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('answers AMS validation errors', async () => {
    const post = (body: unknown) => call('/v1/summary-views', 'POST', body);
    expect(await post({ source: 'working_memory' })).toEqual({
      status: 400,
      body: {
        detail: "SummaryView.source must be 'long_term' for now; 'working_memory' is not yet supported.",
      },
    });
    expect(await post({ source: 'long_term', group_by: ['user_id', 'zeta', 'alpha'] })).toEqual({
      status: 400,
      body: { detail: 'Unsupported group_by fields: alpha, zeta' },
    });
    expect(await post({ source: 'long_term', filters: { text: 'x', created_at: 1 } })).toEqual({
      status: 400,
      body: { detail: 'Unsupported filter fields: created_at, text' },
    });
    const badType = await post({ source: 'long_term', filters: { memory_type: 'procedural' } });
    expect(badType.status).toBe(400);
    expect(badType.body.detail).toContain('memory_type');
    expect((await post({ source: 'long_term', filters: { user_id: { eq: 'x' } } })).status).toBe(400);
    for (const body of [
      {},
      { source: 'other' },
      { source: 'long_term', time_window_days: 0 },
      { source: 'long_term', filters: [] },
    ]) {
      expect((await post(body)).status, JSON.stringify(body)).toBe(422);
    }
  });
});

describe('partitions', () => {
  let viewId: string;
  beforeAll(async () => {
    viewId = await createView({ group_by: ['user_id'], time_window_days: 30, prompt: 'Summarize briefly.' });
  });

  it('summarizes one partition now with the LLM and stores it', async () => {
    llm.script({ content: '  Alice drinks green tea and lives in Porto.  ' });
    const before = llm.requests.length;
    const run = await call(`/v1/summary-views/${viewId}/partitions/run`, 'POST', {
      group: { user_id: 'alice' },
    });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body).toEqual({
      view_id: viewId,
      group: { user_id: 'alice' },
      summary: 'Alice drinks green tea and lives in Porto.',
      memory_count: 2,
      empty: false,
      empty_reason: null,
      computed_at: expect.stringMatching(/Z$/),
    });
    expect(llm.requests).toHaveLength(before + 1);
    const prompt = JSON.stringify(llm.requests.at(-1)?.body.messages);
    expect(prompt).toContain('Summarize briefly.');
    expect(prompt).toContain('Alice drinks green tea.');
    expect(prompt).not.toContain('once had a dog'); // outside the 30-day window
    expect(prompt).not.toContain('Bob');
    expect(prompt).not.toContain('Tenant B');
  });

  it('an empty partition is stored as empty, without calling the model', async () => {
    const before = llm.requests.length;
    const run = await call(`/v1/summary-views/${viewId}/partitions/run`, 'POST', {
      group: { user_id: 'nobody' },
    });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ summary: '', memory_count: 0, empty: true });
    expect(run.body.empty_reason).toContain('nobody');
    expect(llm.requests).toHaveLength(before);
  });

  it('lists stored partitions, filtered by group values', async () => {
    const all = await call(`/v1/summary-views/${viewId}/partitions`);
    expect(all.status).toBe(200);
    expect((all.body as unknown as { group: unknown }[]).map((partition) => partition.group)).toEqual(
      expect.arrayContaining([{ user_id: 'alice' }, { user_id: 'nobody' }]),
    );
    const alice = await call(`/v1/summary-views/${viewId}/partitions?user_id=alice`);
    expect(alice.body).toHaveLength(1);
    expect((await call(`/v1/summary-views/${viewId}/partitions?namespace=shop`)).body).toEqual([]);
  });

  it('rejects group keys that differ from group_by, and unknown views', async () => {
    const run = (group: unknown, id = viewId) =>
      call(`/v1/summary-views/${id}/partitions/run`, 'POST', { group });
    expect(await run({ namespace: 'shop' })).toEqual({
      status: 400,
      body: { detail: "group keys ['namespace'] must exactly match view.group_by ['user_id']" },
    });
    expect((await run({ user_id: 'alice', namespace: 'shop' })).status).toBe(400);
    expect((await run({ user_id: 1 })).status).toBe(422);
    expect((await call(`/v1/summary-views/${viewId}/partitions/run`, 'POST', {})).status).toBe(422);
    expect(await run({ user_id: 'alice' }, 'missing')).toEqual({
      status: 404,
      body: { detail: 'SummaryView missing not found' },
    });
    expect((await call('/v1/summary-views/missing/partitions')).status).toBe(404);
    expect((await call('/v1/summary-views/missing/run', 'POST', {})).status).toBe(404);
  });

  it('deleting a view deletes its stored partitions', async () => {
    const id = await createView({ group_by: ['user_id'] });
    llm.script({ content: 'Bob likes window seats.' });
    expect(
      (await call(`/v1/summary-views/${id}/partitions/run`, 'POST', { group: { user_id: 'bob' } })).status,
    ).toBe(200);
    await call(`/v1/summary-views/${id}`, 'DELETE');
    expect(await engram.summaryViews.get('tenant-a', id)).toBeNull();
    const stored = await engram.store.documents.listDocuments('tenant-a', 'summary-view-partitions', {
      prefix: `${id}:`,
      limit: 10,
      offset: 0,
    });
    expect(stored.total).toBe(0);
  });
});

describe('full runs as tasks', () => {
  it('computes every group in the background; the task reports success', async () => {
    const id = await createView({ group_by: ['user_id', 'namespace'] });
    // Groups: alice/shop and bob/travel (memories without a user or namespace are in no group).
    llm.script({ content: 'Summary one.' }, { content: 'Summary two.' });
    const run = await call(`/v1/summary-views/${id}/run`, 'POST', { force: true });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ type: 'summary_view_full_run', view_id: id, error_message: null });
    expect(['pending', 'running', 'success']).toContain(run.body.status);
    const task = await finishedTask(run.body.id as string);
    expect(task).toMatchObject({ status: 'success', type: 'summary_view_full_run', view_id: id });
    const partitions = (await call(`/v1/summary-views/${id}/partitions`)).body as unknown as Body[];
    expect(partitions.map((partition) => partition.group)).toEqual(
      expect.arrayContaining([
        { user_id: 'alice', namespace: 'shop' },
        { user_id: 'bob', namespace: 'travel' },
      ]),
    );
    expect(partitions).toHaveLength(2);
    expect(partitions.map((partition) => partition.summary).sort()).toEqual(['Summary one.', 'Summary two.']);
  });

  it('the same task_id returns the same task', async () => {
    const id = await createView({ group_by: [], filters: { user_id: 'bob' } });
    llm.script({ content: 'All about Bob.' });
    const first = await call(`/v1/summary-views/${id}/run`, 'POST', { task_id: 'client-1' });
    const second = await call(`/v1/summary-views/${id}/run`, 'POST', { task_id: 'client-1' });
    expect(second.body.id).toBe(first.body.id);
    expect(await finishedTask(first.body.id as string)).toMatchObject({ status: 'success' });
    const [partition] = (await call(`/v1/summary-views/${id}/partitions`)).body as unknown as Body[];
    expect(partition).toMatchObject({ group: {}, summary: 'All about Bob.', memory_count: 1 });
  });

  it('a failed run is visible on the task', async () => {
    const id = await createView({ group_by: ['user_id'], filters: { user_id: 'bob' } });
    llm.script({ status: 400, body: { error: { message: 'model not found' } } });
    const run = await call(`/v1/summary-views/${id}/run`, 'POST', {});
    const task = await finishedTask(run.body.id as string);
    expect(task.status).toBe('failed');
    expect(task.error_message).toContain('HTTP 400');
    expect(task.completed_at).not.toBeNull();
  });
});

describe('tenant scoping', () => {
  it("another tenant's views, partitions and tasks behave as absent", async () => {
    const id = await createView({ group_by: ['user_id'] });
    expect((await call(`/v1/summary-views/${id}`, 'GET', undefined, 'b')).status).toBe(404);
    expect(
      ((await call('/v1/summary-views', 'GET', undefined, 'b')).body as unknown as Body[]).map(
        (view) => view.id,
      ),
    ).not.toContain(id);
    const run = await call(
      `/v1/summary-views/${id}/partitions/run`,
      'POST',
      { group: { user_id: 'alice' } },
      'b',
    );
    expect(run.status).toBe(404);
    expect((await call(`/v1/summary-views/${id}/partitions`, 'GET', undefined, 'b')).status).toBe(404);
    expect((await call(`/v1/summary-views/${id}/run`, 'POST', {}, 'b')).status).toBe(404);
    await call(`/v1/summary-views/${id}`, 'DELETE', undefined, 'b');
    expect((await call(`/v1/summary-views/${id}`)).status).toBe(200);

    // Tenant B's own view sees only tenant B's memories.
    const own = await createView({ group_by: ['user_id'] }, 'b');
    llm.script({ content: 'Another Alice.' });
    const partition = await call(
      `/v1/summary-views/${own}/partitions/run`,
      'POST',
      { group: { user_id: 'alice' } },
      'b',
    );
    expect(partition.body).toMatchObject({ memory_count: 1, summary: 'Another Alice.' });
    expect(JSON.stringify(llm.requests.at(-1)?.body.messages)).not.toContain('green tea');
  });
});

describe('without an LLM', () => {
  it('definitions work; running answers 503 with a clear detail', async () => {
    const created = await plain().request('/v1/summary-views', {
      method: 'POST',
      body: { source: 'long_term', group_by: ['user_id'] },
    });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    for (const [path, body] of [
      [`/v1/summary-views/${id}/partitions/run`, { group: { user_id: 'alice' } }],
      [`/v1/summary-views/${id}/run`, {}],
    ] as const) {
      const response = await plain().request(path, { method: 'POST', body });
      expect(response.status).toBe(503);
      const { detail } = (await response.json()) as { detail: string };
      expect(detail).toContain('Running a summary view needs an LLM, and none is configured');
    }
    expect((await plain().request(`/v1/summary-views/${id}/partitions`)).status).toBe(200);
  });
});
