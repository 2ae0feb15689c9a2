import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import type { Role } from '../../src/server/auth/principal.js';
import { callFailing, callOk, connectHttp } from '../mcp/mcp-test-client.js';
import { type SeededIds, seedTenant, snapshotTenant } from './seeded-tenant.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer({ auth: { mode: 'enabled' } });

/** Real API keys: tenant A's three roles and tenant B's admin. */
const keys: Record<string, string> = {};
const credentials: [string, string, Role][] = [
  ['aAdmin', 'tenant-a', 'admin'],
  ['aAgent', 'tenant-a', 'agent'],
  ['aInspector', 'tenant-a', 'inspector'],
  ['bAdmin', 'tenant-b', 'admin'],
];
/** Words only tenant A's data contains: none may show up in an answer to anyone else. */
const secrets = [
  'Ada',
  'kettle',
  'Oslo',
  'Bergen',
  'Returns',
  'Damaged item',
  'secret of chat-2',
  'A-1',
  'Acme',
];

let seeded: SeededIds;
let before: unknown;

beforeAll(async () => {
  const apiKeys = createApiKeys(testServer().engram.store.documents);
  for (const [name, tenantId, role] of credentials) {
    keys[name] = (await apiKeys.create({ tenantId, role })).key;
  }
  seeded = await seedTenant(testServer(), 'tenant-a', keys.aAdmin as string);
  before = await snapshotTenant(testServer().engram, 'tenant-a', seeded.taskId);
});

async function as(who: string, method: string, path: string, body?: unknown) {
  const response = await testServer().request(path, {
    method,
    headers: { authorization: `Bearer ${keys[who]}` },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, text };
}

/** Not found, or an answer that carries nothing of tenant A. */
function expectHidden(answer: { status: number; text: string }, what: string) {
  expect([200, 201, 204, 404], `${what}: ${answer.status} ${answer.text}`).toContain(answer.status);
  for (const secret of secrets) expect(answer.text, what).not.toContain(secret);
}

describe("tenant B's admin sees and changes nothing of tenant A", () => {
  afterAll(async () => {
    expect(await snapshotTenant(testServer().engram, 'tenant-a', seeded.taskId)).toEqual(before);
  });

  it('long-term memories: read, search, edit, delete, create with the same id, prompt', async () => {
    for (const id of seeded.memoryIds) {
      expect((await as('bAdmin', 'GET', `/v1/long-term-memory/${id}`)).status).toBe(404);
      expect((await as('bAdmin', 'PATCH', `/v1/long-term-memory/${id}`, { text: 'B was here' })).status).toBe(
        404,
      );
    }
    const search = await as('bAdmin', 'POST', '/v1/long-term-memory/search', { text: 'Ada', limit: 100 });
    expect(JSON.parse(search.text)).toMatchObject({ memories: [], total: 0 });
    const remove = await as('bAdmin', 'DELETE', `/v1/long-term-memory?memory_ids=mem-1&memory_ids=mem-2`);
    expect(JSON.parse(remove.text)).toEqual({ status: 'ok, deleted 0 memories' });
    for (const path of ['/v1/long-term-memory/compact', '/v1/long-term-memory/forget?dry_run=false']) {
      expectHidden(
        await as(
          'bAdmin',
          'POST',
          path,
          path.includes('forget') ? { policy: { max_age_days: 0.0001 } } : undefined,
        ),
        path,
      );
    }
    const prompt = await as('bAdmin', 'POST', '/v1/memory/prompt', {
      query: 'Where does Ada live?',
      session: { session_id: 'chat-1', namespace: 'shop', user_id: 'ada' },
      long_term_search: { text: 'x', limit: 50 },
    });
    expect(prompt.status).toBe(200);
    expect(prompt.text).not.toMatch(/kettle|Oslo|Bergen|replacements/);
  });
  it('sessions, working set, traces and tasks', async () => {
    for (const { sessionId, namespace, userId } of seeded.sessions) {
      const query = new URLSearchParams({
        ...(namespace ? { namespace } : {}),
        ...(userId ? { user_id: userId } : {}),
      });
      for (const path of [
        `/v1/working-memory/${sessionId}?${query}`,
        `/v1/working-memory/${sessionId}/working-set?${query}&query=kettle`,
        `/v1/inspector/sessions/${sessionId}/traces?${query}`,
      ]) {
        expectHidden(await as('bAdmin', 'GET', path), path);
      }
      expectHidden(
        await as('bAdmin', 'POST', `/v1/working-memory/${sessionId}/working-set?${query}`, {
          pin: [seeded.memoryIds[0]],
        }),
        'working-set write',
      );
      expectHidden(
        await as('bAdmin', 'PATCH', `/v1/working-memory/${sessionId}?${query}`, { data: { order: null } }),
        'session patch',
      );
    }
    expect(JSON.parse((await as('bAdmin', 'GET', '/v1/working-memory/?limit=100')).text)).toEqual({
      sessions: [],
      total: 0,
    });
    expect((await as('bAdmin', 'GET', `/v1/tasks/${seeded.taskId}`)).status).toBe(404);
  });

  it('agents, knowledge and procedures', async () => {
    const agent = `/v1/agents/${seeded.agentId}`;
    expect(JSON.parse((await as('bAdmin', 'GET', '/v1/agents')).text)).toMatchObject({ agents: [] });
    for (const [method, path, body] of [
      ['GET', agent],
      ['PATCH', agent, { system_prompt: 'B was here' }],
      ['DELETE', agent],
      ['GET', `${agent}/knowledge`],
      ['POST', `${agent}/knowledge`, { name: 'B.md', content: 'B was here' }],
      ['DELETE', `${agent}/knowledge/${seeded.documentId}`],
      ['GET', `${agent}/procedures`],
      ['POST', `${agent}/procedures`, { name: 'B', steps: ['x'] }],
      ...seeded.procedureIds.flatMap((id) => [
        ['GET', `${agent}/procedures/${id}`],
        ['PATCH', `${agent}/procedures/${id}`, { steps: ['B was here'] }],
        ['POST', `${agent}/procedures/${id}/approve`],
        ['POST', `${agent}/procedures/${id}/reject`],
        ['DELETE', `${agent}/procedures/${id}`],
      ]),
      [
        'POST',
        '/v1/context',
        { agent_id: seeded.agentId, session_id: 'chat-1', namespace: 'shop', user_id: 'ada', message: 'hi' },
      ],
    ] as [string, string, unknown?][]) {
      const answer = await as('bAdmin', method, path, body);
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(404);
    }
  });

  it('MCP over HTTP is scoped to B', async () => {
    const client: Client = await connectHttp(testServer().url, { authorization: `Bearer ${keys.bAdmin}` });
    try {
      for (const id of seeded.memoryIds) {
        expect((await callFailing(client, 'get_long_term_memory', { memory_id: id })).code).toBe('not_found');
        expect((await callFailing(client, 'edit_long_term_memory', { memory_id: id, text: 'B' })).code).toBe(
          'not_found',
        );
      }
      expect(await callOk(client, 'search_long_term_memory', { text: 'Ada Oslo Bergen' })).toMatchObject({
        total: 0,
      });
      expect(
        await callOk(client, 'delete_long_term_memories', { memory_ids: seeded.memoryIds }),
      ).toMatchObject({ deleted: 0 });
      expect((await callFailing(client, 'get_working_memory', { session_id: 'chat-1' })).code).toBe(
        'not_found',
      );
      // Tenant A's session is not found from tenant B, as get_working_memory says; without it, B
      // sees none of A's memories.
      const withSession = await callFailing(client, 'memory.query', {
        query: 'kettle',
        user_id: 'ada',
        session_id: 'chat-1',
        namespace: 'shop',
      });
      expect(withSession.code).toBe('not_found');
      const query = await callOk(client, 'memory.query', {
        query: 'kettle',
        user_id: 'ada',
        namespace: 'shop',
      });
      expect(query).toMatchObject({ items: [] });
      const prompt = await callOk(client, 'memory_prompt', {
        query: 'where do I live?',
        session_id: { eq: 'chat-1' },
        namespace: { eq: 'shop' },
        user_id: { eq: 'ada' },
      });
      for (const secret of secrets) expect(JSON.stringify(prompt)).not.toContain(secret);
    } finally {
      await client.close();
    }
  });
  it("B's own memory with A's id is B's alone (last: from here on it exists in B)", async () => {
    const created = await as('bAdmin', 'POST', '/v1/long-term-memory/', {
      memories: [{ id: 'mem-1', text: 'B owns this' }],
    });
    expect(created.status).toBe(200);
    const ours = await as('bAdmin', 'GET', '/v1/long-term-memory/mem-1');
    expect(JSON.parse(ours.text).text).toBe('B owns this');
    expect(JSON.parse((await as('aAdmin', 'GET', '/v1/long-term-memory/mem-1')).text).text).toMatch(/Ada/);
  });
});

describe('roles within tenant A', () => {
  afterAll(async () => {
    expect(await snapshotTenant(testServer().engram, 'tenant-a', seeded.taskId)).toEqual(before);
  });

  it('an inspector writes nowhere (REST and MCP) but reads, traces included', async () => {
    const agent = `/v1/agents/${seeded.agentId}`;
    const [approved] = seeded.procedureIds;
    for (const [method, path, body] of [
      ['PUT', '/v1/working-memory/chat-9', { messages: [] }],
      ['DELETE', '/v1/working-memory/chat-1?namespace=shop&user_id=ada'],
      ['PATCH', '/v1/working-memory/chat-1?namespace=shop&user_id=ada', { data: { x: 1 } }],
      [
        'POST',
        '/v1/working-memory/chat-1/messages?namespace=shop&user_id=ada',
        { messages: [{ role: 'user', content: 'x' }] },
      ],
      ['POST', '/v1/working-memory/chat-1/working-set?namespace=shop&user_id=ada', { pin: ['mem-1'] }],
      ['POST', '/v1/long-term-memory/', { memories: [{ id: 'x', text: 'x' }] }],
      ['PATCH', '/v1/long-term-memory/mem-1', { text: 'x' }],
      ['DELETE', '/v1/long-term-memory?memory_ids=mem-1'],
      ['POST', '/v1/long-term-memory/compact'],
      ['POST', '/v1/long-term-memory/forget', { policy: {} }],
      ['POST', '/v1/agents', { id: 'other' }],
      ['PATCH', agent, { system_prompt: 'x' }],
      ['DELETE', agent],
      ['POST', `${agent}/knowledge`, { name: 'x', content: 'x' }],
      ['DELETE', `${agent}/knowledge/${seeded.documentId}`],
      ['POST', `${agent}/procedures`, { name: 'x', steps: ['x'] }],
      ['PATCH', `${agent}/procedures/${approved}`, { steps: ['x'] }],
      ['DELETE', `${agent}/procedures/${approved}`],
      ['POST', `${agent}/procedures/${approved}/reject`],
      ['POST', '/v1/context', { agent_id: seeded.agentId, session_id: 'chat-1', message: 'x' }],
    ] as [string, string, unknown?][]) {
      const answer = await as('aInspector', method, path, body);
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(403);
    }
    for (const path of [
      '/v1/long-term-memory/mem-1',
      '/v1/working-memory/chat-1?namespace=shop&user_id=ada',
      `/v1/inspector/sessions/chat-1/traces?namespace=shop&user_id=ada`,
      `${agent}/procedures`,
    ]) {
      expect((await as('aInspector', 'GET', path)).status, path).toBe(200);
    }
    const client = await connectHttp(testServer().url, { authorization: `Bearer ${keys.aInspector}` });
    try {
      for (const [tool, args] of [
        ['create_long_term_memories', { memories: [{ text: 'x' }] }],
        ['edit_long_term_memory', { memory_id: 'mem-1', text: 'x' }],
        ['delete_long_term_memories', { memory_ids: ['mem-1'] }],
        ['append_working_memory', { session_id: 'chat-1', messages: [{ role: 'user', content: 'x' }] }],
        ['set_working_memory_data', { session_id: 'chat-1', data: { x: 1 } }],
      ] as [string, Record<string, unknown>][]) {
        expect((await callFailing(client, tool, args)).code, tool).toBe('forbidden');
      }
      expect(await callOk(client, 'get_long_term_memory', { memory_id: 'mem-1' })).toMatchObject({
        id: expect.any(String),
      });
    } finally {
      await client.close();
    }
  });

  it('an agent cannot approve procedures, manage agents or knowledge, or read traces', async () => {
    const agent = `/v1/agents/${seeded.agentId}`;
    const [approved, pending] = seeded.procedureIds;
    for (const [method, path, body] of [
      ['POST', `${agent}/procedures/${pending}/approve`],
      ['POST', `${agent}/procedures/${approved}/reject`],
      ['POST', '/v1/agents', { id: 'other' }],
      ['PATCH', agent, { system_prompt: 'x' }],
      ['DELETE', agent],
      ['POST', `${agent}/knowledge`, { name: 'x', content: 'x' }],
      ['DELETE', `${agent}/knowledge/${seeded.documentId}`],
      ['GET', `/v1/inspector/sessions/chat-1/traces?namespace=shop&user_id=ada`],
      ['GET', '/metrics'],
    ] as [string, string, unknown?][]) {
      const answer = await as('aAgent', method, path, body);
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(403);
    }
    expect((await as('aAgent', 'GET', `${agent}/procedures/${pending}`)).status).toBe(200);
  });
});
