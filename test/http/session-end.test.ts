import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import type { Role } from '../../src/server/auth/principal.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer({ auth: { mode: 'enabled' } });

const keys: Record<string, string> = {};
const credentials: [string, string, Role][] = [
  ['a', 'tenant-a', 'agent'],
  ['aInspector', 'tenant-a', 'inspector'],
  ['b', 'tenant-b', 'agent'],
];

beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => {}); // "procedure capture skipped: no LLM"
  const apiKeys = createApiKeys(testServer().engram.store.documents);
  for (const [name, tenantId, role] of credentials)
    keys[name] = (await apiKeys.create({ tenantId, role })).key;
  const put = await as('a', '/v1/working-memory/chat-1', {
    method: 'PUT',
    body: {
      user_id: 'erin',
      messages: [
        { role: 'user', content: 'My cat Miso needs a vet appointment on Friday.' },
        { role: 'assistant', content: 'I booked Miso at the Harbour vet clinic for Friday at 10.' },
      ],
    },
  });
  expect(put.status).toBe(200);
});

function as(who: string, path: string, init: { method?: string; body?: unknown } = {}) {
  return testServer().request(path, { ...init, headers: { authorization: `Bearer ${keys[who]}` } });
}

const end = (who: string, path: string, body?: unknown) =>
  as(who, path, { method: 'POST', ...(body === undefined ? {} : { body }) });

async function waitForTask(who: string, id: string) {
  return vi.waitFor(async () => {
    const task = (await (await as(who, `/v1/tasks/${id}`)).json()) as { status: string };
    if (task.status !== 'success' && task.status !== 'failed') throw new Error(task.status);
    return task;
  });
}

describe('POST /v1/working-memory/{session_id}/end', () => {
  it('enqueues the end-session task, whose episode is then searchable; ending again is the same task', async () => {
    const response = await end('a', '/v1/working-memory/chat-1/end?user_id=erin');
    expect(response.status).toBe(202);
    const body = (await response.json()) as {
      session_id: string;
      through_seq: number;
      task: { id: string; type: string };
    };
    expect(body).toMatchObject({ session_id: 'chat-1', through_seq: 2, task: { type: 'end-session' } });
    expect(await waitForTask('a', body.task.id)).toMatchObject({ status: 'success', error_message: null });

    const hits = await testServer().engram.episodes.search('tenant-a', {
      userId: 'erin',
      query: 'vet appointment for Miso',
    });
    expect(hits.map((hit) => hit.episode.sessionId)).toEqual(['chat-1']);

    await testServer().engram.agents.create('tenant-a', { id: 'pet-bot' });
    const again = await end('a', '/v1/working-memory/chat-1/end?user_id=erin', { agent_id: 'pet-bot' });
    expect(((await again.json()) as { task: { id: string } }).task.id).toBe(body.task.id);
  });

  it('answers 404 for an agent that does not exist, and enqueues nothing', async () => {
    const before = await testServer().engram.jobs.list('tenant-a', { limit: 200, offset: 0 });
    const response = await end('a', '/v1/working-memory/chat-1/end?user_id=erin', {
      agent_id: 'no-such-bot',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
    const after = await testServer().engram.jobs.list('tenant-a', { limit: 200, offset: 0 });
    expect(after.total).toBe(before.total);
  });

  it('answers 404 in the engram shape for an unknown session, another user’s or another tenant’s', async () => {
    for (const [who, path] of [
      ['a', '/v1/working-memory/nope/end'],
      ['a', '/v1/working-memory/chat-1/end'], // no user_id: a different session
      ['b', '/v1/working-memory/chat-1/end?user_id=erin'],
    ] as const) {
      const response = await end(who, path);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'not_found', category: 'not_found' } });
    }
    expect(await testServer().engram.episodes.search('tenant-b', { userId: 'erin', query: 'Miso' })).toEqual(
      [],
    );
  });

  it('needs the write permission and validates its body', async () => {
    expect((await end('aInspector', '/v1/working-memory/chat-1/end?user_id=erin')).status).toBe(403);
    const invalid = await end('a', '/v1/working-memory/chat-1/end?user_id=erin', { agent_id: '', extra: 1 });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: 'validation_failed' } });
  });

  it('is documented in the OpenAPI document as an extension', async () => {
    const document = (await (await testServer().request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const operation = document.paths['/v1/working-memory/{session_id}/end']?.post;
    expect(operation).toMatchObject({ 'x-engram-extension': true, 'x-engram-permission': 'write' });
    expect(operation).not.toHaveProperty('x-engram-undocumented');
    // What the route answers: 202 (the work is a background task), 404 for an unknown session.
    expect(Object.keys(operation?.responses as object)).toEqual(expect.arrayContaining(['202', '404']));
    expect(operation?.responses as object).not.toHaveProperty('200');
    // AMS's own working-memory routes carry no such marker.
    const amsPut = document.paths['/v1/working-memory/{session_id}']?.put;
    expect(amsPut).toMatchObject({ 'x-engram-permission': 'write' });
    expect(amsPut).not.toHaveProperty('x-engram-extension');
  });
});
