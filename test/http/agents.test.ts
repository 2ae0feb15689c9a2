import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { agentResponseSchema } from '../../src/server/extensions/agent-schemas.js';
import { useExtensionApp } from './extension-app.js';
import { useTestServer } from './test-server.js';

const extensionApp = useExtensionApp({ defaultSources: false });

type AgentBody = z.output<typeof agentResponseSchema>;
interface ErrorBody {
  error: { code: string; category: string; message: string; details: { issues: { loc: unknown[] }[] } };
}
const testServer = useTestServer();

describe('agents over the real server', () => {
  it('creates, reads, updates (with If-Match), lists and deletes an agent', async () => {
    const { request } = testServer();
    const created = await request('/v1/agents', {
      method: 'POST',
      body: { id: 'support', system_prompt: 'You help.', memory: { max_working_memory_tokens: 4000 } },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    const agent = (await created.json()) as AgentBody;
    expect(agent).toMatchObject({ id: 'support', system_prompt: 'You help.', version: 1 });
    expect(agent.memory).toMatchObject({
      max_working_memory_tokens: 4000,
      reserved_output_tokens: 1000,
      model: 'gpt-4o',
      pruning_strategy: 'drop-oldest',
      semantic_top_k: 50,
    });

    const read = await request('/v1/agents/support');
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(agent);

    const patched = await request('/v1/agents/support', {
      method: 'PATCH',
      headers: { 'if-match': '"1"' },
      body: { memory: { semantic_top_k: 2, section_caps: { knowledge: 500 } } },
    });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"2"');
    expect(((await patched.json()) as AgentBody).memory).toMatchObject({
      semantic_top_k: 2,
      max_working_memory_tokens: 4000,
      section_caps: { knowledge: 500 },
    });
    const stale = await request('/v1/agents/support', {
      method: 'PATCH',
      headers: { 'if-match': '"1"' },
      body: { system_prompt: 'lost' },
    });
    expect(stale.status).toBe(412);
    expect(((await stale.json()) as ErrorBody).error.code).toBe('precondition_failed');

    const list = (await (await request('/v1/agents')).json()) as { agents: AgentBody[]; total: number };
    expect(list.total).toBe(1);
    expect(list.agents[0]?.id).toBe('support');

    expect((await request('/v1/agents/support', { method: 'DELETE' })).status).toBe(204);
    const gone = await request('/v1/agents/support');
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as ErrorBody).error).toMatchObject({
      code: 'not_found',
      category: 'not_found',
    });
  });

  it('answers validation errors as 400 in the engram shape, and a taken id as 409', async () => {
    const { request } = testServer();
    const unknownKey = await request('/v1/agents', { method: 'POST', body: { memory: { max_tokens: 10 } } });
    expect(unknownKey.status).toBe(400);
    const body = (await unknownKey.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: 'validation_failed', category: 'validation' });
    expect(body.error.details.issues[0]?.loc).toEqual(['body', 'memory']);

    const crossField = await request('/v1/agents', {
      method: 'POST',
      body: { memory: { max_working_memory_tokens: 100, reserved_output_tokens: 100 } },
    });
    expect(crossField.status).toBe(400);
    expect(((await crossField.json()) as ErrorBody).error.code).toBe('validation_failed');

    // A model engram does not know, or a budget over the model's window, would fail every turn:
    // refused when the agent is written, by create and by update.
    for (const memory of [{ model: 'foo-model' }, { model: 'gpt-4', max_working_memory_tokens: 100_000 }]) {
      const refused = await request('/v1/agents', { method: 'POST', body: { id: 'bad-model', memory } });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as ErrorBody).error.message).toMatch(
        /Unknown model "foo-model"|8192-token context window/,
      );
    }
    expect((await request('/v1/agents/bad-model')).status).toBe(404);
    expect((await request('/v1/agents', { method: 'POST', body: { id: 'gpt4-bot' } })).status).toBe(201);
    const patched = await request('/v1/agents/gpt4-bot', {
      method: 'PATCH',
      body: { memory: { model: 'foo-model' } },
    });
    expect(patched.status).toBe(400);

    expect((await request('/v1/agents', { method: 'POST', body: '{' })).status).toBe(400);
    expect((await request('/v1/agents?limit=0')).status).toBe(400);

    expect((await request('/v1/agents', { method: 'POST', body: { id: 'twice' } })).status).toBe(201);
    const again = await request('/v1/agents', { method: 'POST', body: { id: 'twice' } });
    expect(again.status).toBe(409);
    const conflict = (await again.json()) as ErrorBody;
    expect(conflict.error.code).toBe('version_conflict');
    expect(conflict.error.message).toBe('Agent twice already exists');
    expect((await request('/v1/agents/nobody', { method: 'PATCH', body: {} })).status).toBe(404);
    expect((await request('/v1/agents/nobody', { method: 'DELETE' })).status).toBe(404);
  });
});

describe('agents across tenants and roles', () => {
  it('keeps each tenant’s agents invisible to the others', async () => {
    const { call } = extensionApp();
    expect((await call('POST', '/v1/agents', { body: { id: 'bot', system_prompt: 'one' } })).status).toBe(
      201,
    );
    const other = { tenant: 't2' };
    expect((await call('GET', '/v1/agents/bot', { caller: other })).status).toBe(404);
    expect((await call('GET', '/v1/agents', { caller: other })).body).toEqual({ agents: [], total: 0 });
    expect(
      (await call('PATCH', '/v1/agents/bot', { caller: other, body: { system_prompt: 'x' } })).status,
    ).toBe(404);
    expect((await call('DELETE', '/v1/agents/bot', { caller: other })).status).toBe(404);
    expect((await call('GET', '/v1/agents/bot')).body.system_prompt).toBe('one');
  });

  it('needs admin to write and read to read', async () => {
    const { call } = extensionApp();
    const agent = { role: 'agent' as const };
    const denied = await call('POST', '/v1/agents', { caller: agent, body: { id: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('forbidden');
    expect((await call('DELETE', '/v1/agents/bot', { caller: agent })).status).toBe(403);
    expect((await call('PATCH', '/v1/agents/bot', { caller: { role: 'inspector' }, body: {} })).status).toBe(
      403,
    );
    expect((await call('GET', '/v1/agents/bot', { caller: agent })).status).toBe(200);
  });
});
