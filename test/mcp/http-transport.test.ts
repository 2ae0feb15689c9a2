import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngram } from '../../src/engram.js';
import type { Principal } from '../../src/server/auth/principal.js';
import { registerMcpRoutes } from '../../src/server/mcp-routes.js';
import { createMemoryStore } from '../../src/stores/memory/memory-store.js';
import { useTestServer } from '../http/test-server.js';
import { callFailing, callOk, connectHttp } from './mcp-test-client.js';
import { describeMemoryTools } from './tool-scenarios.js';

describe('MCP over streamable HTTP at /mcp', () => {
  const server = useTestServer();
  let client: Client | undefined;
  beforeAll(async () => {
    client = await connectHttp(server().url);
  });
  afterAll(async () => {
    await client?.close();
  });

  describeMemoryTools(
    () => {
      if (!client) throw new Error('not connected');
      return client;
    },
    { sources: false },
  );

  it('deletes a memory with the memories merged into it, as REST does: no old text lingers', async () => {
    const { engram } = server();
    const [old] = (
      await engram.memories.create('default', [
        { id: 'merge-old', text: 'Door code 9999', userId: 'mcp-del' },
      ])
    ).inserted;
    if (!old) throw new Error('not created');
    const now = new Date().toISOString();
    await engram.store.memories.supersede('default', 'merge-old', {
      ...old,
      id: 'merge-new',
      text: 'Door code changed',
      createdAt: now,
      updatedAt: now,
      validFrom: now,
      memoryHash: 'hash-merge-new',
      embedding: null,
    });
    const answer = await callOk<{ deleted: number }>(client as Client, 'delete_long_term_memories', {
      memory_ids: ['merge-new'],
    });
    expect(answer.deleted).toBe(1);
    expect(await engram.store.memories.getMemories('default', ['merge-old', 'merge-new'])).toEqual([]);
  });

  it('runs through the authentication hook: the principal’s tenant is the one REST uses', async () => {
    await callOk(client as Client, 'append_working_memory', {
      session_id: 'shared-with-rest',
      messages: [{ role: 'user', content: 'written over MCP' }],
    });
    const response = await server().request('/v1/working-memory/shared-with-rest');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { messages: { content: string }[] };
    expect(body.messages.map((message) => message.content)).toEqual(['written over MCP']);
  });

  it('procedures.list answers the procedures REST stored, snake_case as on REST', async () => {
    const created = await server().request('/v1/agents/default/procedures', {
      method: 'POST',
      body: { name: 'Damaged order', triggers: ['damaged'], steps: ['Apologize', 'Offer a replacement'] },
    });
    expect(created.status).toBe(201);
    const stored = (await created.json()) as { id: string };
    const listed = await callOk<{ procedures: Record<string, unknown>[] }>(
      client as Client,
      'procedures.list',
      {
        status: 'pending',
      },
    );
    const rest = (await (await server().request('/v1/agents/default/procedures?status=pending')).json()) as {
      procedures: unknown[];
    };
    expect(listed.procedures).toEqual(rest.procedures);
    expect(listed.procedures.map((procedure) => procedure.id)).toContain(stored.id);
    expect(await callOk(client as Client, 'procedures.list', { status: 'approved' })).toEqual({
      procedures: [],
    });
  });

  it('is stateless: no session id, GET and DELETE are 405, and malformed JSON is a JSON-RPC parse error', async () => {
    const list = await server().request('/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'x-request-id': 'mcp-test-1' },
      body: { jsonrpc: '2.0', id: 7, method: 'tools/list' },
    });
    expect(list.status).toBe(200);
    expect(list.headers.get('mcp-session-id')).toBeNull();
    expect(list.headers.get('x-request-id')).toBe('mcp-test-1');
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);

    expect((await server().request('/mcp')).status).toBe(405);
    expect((await server().request('/mcp', { method: 'DELETE' })).status).toBe(405);
    const malformed = await server().request('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc": "2.0",',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: -32700 }, id: null });
  });

  it('answers a request whose params do not fit its method with -32602 and a short message', async () => {
    const call = await server().request('/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} },
    });
    const answer = (await call.json()) as { id: number; error: { code: number; message: string } };
    expect(answer).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(answer.error.message).toMatch(/^Invalid params for tools\/call: params\.name: /);
    expect(answer.error.message.length).toBeLessThan(300);
  });
});

describe('/mcp with an authenticated principal', () => {
  // This branch has no credentials yet: a hook stands in for the authenticator and sets the
  // principal from a header, as the real one will from an API key or JWT.
  const engramPromise = createEngram({
    store: createMemoryStore(),
    sweepIntervalMs: 0,
  });
  const app = Fastify();
  let url = '';
  beforeAll(async () => {
    const engram = await engramPromise;
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.decorateRequest('principal', null as unknown as Principal);
    app.addHook('onRequest', async (request) => {
      const [tenantId = 'default', role = 'agent'] = String(request.headers['x-test-principal']).split(':');
      request.principal = { tenantId, role: role as Principal['role'], subject: 'test' };
    });
    registerMcpRoutes(app, engram);
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await (await engramPromise).close();
  });

  it('scopes the tools to the principal’s tenant', async () => {
    const acme = await connectHttp(url, { 'x-test-principal': 'acme:agent' });
    const globex = await connectHttp(url, { 'x-test-principal': 'globex:agent' });
    const { memory_ids } = await callOk<{ memory_ids: string[] }>(acme, 'create_long_term_memories', {
      memories: [{ text: 'Acme ships anvils', user_id: 'wile' }],
    });
    const id = memory_ids[0] as string;
    const engram = await engramPromise;
    expect((await engram.memories.get('acme', id)).text).toBe('Acme ships anvils');
    await expect(engram.memories.get('default', id)).rejects.toThrow(/not found/);
    expect((await callFailing(globex, 'get_long_term_memory', { memory_id: id })).code).toBe('not_found');
    await Promise.all([acme.close(), globex.close()]);
  });

  it('lets a read-only role read but not write', async () => {
    const inspector = await connectHttp(url, { 'x-test-principal': 'acme:inspector' });
    const { total } = await callOk<{ total: number }>(inspector, 'search_long_term_memory', {
      text: 'anvils',
    });
    expect(total).toBe(1);
    const refused = await callFailing(inspector, 'create_long_term_memories', { memories: [{ text: 'no' }] });
    expect(refused).toMatchObject({ code: 'forbidden', category: 'forbidden', mcpCode: -32003 });
    const append = await callFailing(inspector, 'append_working_memory', {
      session_id: 's',
      messages: [{ role: 'user', content: 'no' }],
    });
    expect(append.code).toBe('forbidden');
    // As on REST: assembling a context writes (its trace is stored), uploading knowledge needs admin.
    expect(
      (await callOk<{ hits: unknown[] }>(inspector, 'knowledge.search', { query: 'anvils' })).hits,
    ).toEqual([]);
    expect(await callOk(inspector, 'procedures.list', {})).toEqual({ procedures: [] });
    const assemble = await callFailing(inspector, 'context.assemble', { session_id: 's', message: 'hi' });
    expect(assemble.code).toBe('forbidden');
    await inspector.close();
  });

  it('lets an agent assemble and search but only an admin upload knowledge', async () => {
    const agent = await connectHttp(url, { 'x-test-principal': 'acme:agent' });
    const admin = await connectHttp(url, { 'x-test-principal': 'acme:admin' });
    const upload = { name: 'Anvils.md', content: 'Anvils are heavy.' };
    expect((await callFailing(agent, 'knowledge.upload', upload)).code).toBe('forbidden');
    expect(await callOk(admin, 'knowledge.upload', upload)).toMatchObject({ name: 'Anvils.md' });
    const { hits } = await callOk<{ hits: { source: string }[] }>(agent, 'knowledge.search', {
      query: 'anvils',
    });
    expect(hits.map((hit) => hit.source)).toEqual(['Anvils.md']);
    const assembled = await callOk<{ messages: { content: string }[] }>(agent, 'context.assemble', {
      session_id: 's',
      message: 'How heavy are anvils?',
    });
    expect(assembled.messages.map((message) => message.content).join('\n')).toContain('Anvils are heavy.');
    await Promise.all([agent.close(), admin.close()]);
  });
});
