import { describe, expect, it } from 'vitest';
import { useExtensionApp } from './extension-app.js';

const extensionApp = useExtensionApp({ defaultSources: false });

describe('knowledge documents per agent', () => {
  it('uploads as JSON or raw Markdown, lists and deletes', async () => {
    const { call } = extensionApp();
    await call('POST', '/v1/agents', { body: { id: 'support' } });
    const json = await call('POST', '/v1/agents/support/knowledge', {
      body: { name: 'Returns.md', content: '# Returns\nWithin 30 days.\n# Shipping\nFree over 50.' },
    });
    expect(json.status).toBe(201);
    expect(json.body).toMatchObject({ agent_id: 'support', name: 'Returns.md' });
    expect(json.body.chunks).toBeGreaterThanOrEqual(1);
    const raw = await call('POST', '/v1/agents/support/knowledge?name=Notes.txt', {
      body: 'Plain notes about warranties.',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
    expect(raw.status).toBe(201);
    expect(raw.body.name).toBe('Notes.txt');

    const list = await call('GET', '/v1/agents/support/knowledge');
    expect(list.body.documents.map((document: { name: string }) => document.name)).toEqual([
      'Notes.txt',
      'Returns.md',
    ]);
    // The built-in default agent has knowledge too, without being stored.
    expect((await call('GET', '/v1/agents/default/knowledge')).body).toEqual({ documents: [] });

    const removed = await call('DELETE', `/v1/agents/support/knowledge/${raw.body.document_id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.deleted_chunks).toBe(raw.body.chunks);
    expect((await call('DELETE', `/v1/agents/support/knowledge/${raw.body.document_id}`)).status).toBe(404);
    expect((await call('GET', '/v1/agents/support/knowledge')).body.documents).toHaveLength(1);
  });

  it('refuses bad uploads with 400, unknown agents with 404, other tenants and non-admins', async () => {
    const { call } = extensionApp();
    for (const body of [
      { name: 'x.md' },
      { name: '', content: 'x' },
      { name: 'x.md', content: 'x', content_type: 'application/pdf' },
    ]) {
      const answer = await call('POST', '/v1/agents/support/knowledge', { body });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('validation_failed');
    }
    const noName = await call('POST', '/v1/agents/support/knowledge', {
      body: '# Title',
      headers: { 'content-type': 'text/markdown' },
    });
    expect(noName.status).toBe(400);
    const blank = await call('POST', '/v1/agents/support/knowledge', {
      body: { name: 'x.md', content: '   ' },
    });
    expect(blank.status).toBe(400);
    expect(
      (await call('POST', '/v1/agents/ghost/knowledge', { body: { name: 'a', content: 'b' } })).status,
    ).toBe(404);
    expect((await call('GET', '/v1/agents/ghost/knowledge')).status).toBe(404);

    const other = { tenant: 't2' };
    expect((await call('GET', '/v1/agents/support/knowledge', { caller: other })).status).toBe(404);
    const documentId = (await call('GET', '/v1/agents/support/knowledge')).body.documents[0].document_id;
    expect(
      (await call('DELETE', `/v1/agents/support/knowledge/${documentId}`, { caller: other })).status,
    ).toBe(404);
    const agent = { role: 'agent' as const };
    expect(
      (
        await call('POST', '/v1/agents/support/knowledge', {
          caller: agent,
          body: { name: 'a', content: 'b' },
        })
      ).status,
    ).toBe(403);
    expect((await call('GET', '/v1/agents/support/knowledge', { caller: agent })).status).toBe(200);
  });
});

describe('procedures per agent', () => {
  it('proposes as pending, edits as a new version, approves, rejects and deletes', async () => {
    const { call } = extensionApp();
    const created = await call('POST', '/v1/agents/support/procedures', {
      caller: { role: 'agent' },
      body: { name: 'Refund', triggers: ['refund'], steps: ['Check the order', 'Refund it'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ agent_id: 'support', status: 'pending', version: 1, examples: [] });
    const id = created.body.id;
    const { deduplicated, ...stored } = created.body;
    expect(deduplicated).toBe(false);
    expect((await call('GET', `/v1/agents/support/procedures/${id}`)).body).toEqual(stored);

    const edited = await call('PATCH', `/v1/agents/support/procedures/${id}`, {
      body: { steps: ['Refund it'] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      version: 2,
      steps: ['Refund it'],
      status: 'pending',
      name: 'Refund',
    });

    const denied = await call('POST', `/v1/agents/support/procedures/${edited.body.id}/approve`, {
      caller: { role: 'agent' },
    });
    expect(denied.status).toBe(403);
    expect(edited.body.id).toBe(id);
    const approved = await call('POST', `/v1/agents/support/procedures/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id, status: 'approved', version: 3 });
    // Approving the original id again is no conflict: it is approved, nothing changes.
    const twice = await call('POST', `/v1/agents/support/procedures/${id}/approve`);
    expect(twice).toMatchObject({ status: 200, body: approved.body });
    const history = (await extensionApp().engram.memories.history('t1', id)).versions;
    expect(history.map((version) => version.writtenBy)).toEqual(['user', 'api', 'api']);
    expect((await call('GET', '/v1/agents/support/procedures?status=approved')).body.procedures).toHaveLength(
      1,
    );
    expect((await call('GET', '/v1/agents/support/procedures?status=pending')).body.procedures).toHaveLength(
      0,
    );

    const rejected = await call('POST', `/v1/agents/support/procedures/${approved.body.id}/reject`);
    expect(rejected.body).toMatchObject({ status: 'rejected', version: 4 });
    expect((await call('DELETE', `/v1/agents/support/procedures/${rejected.body.id}`)).status).toBe(204);
    expect((await call('GET', `/v1/agents/support/procedures/${rejected.body.id}`)).status).toBe(404);
  });

  it('reports a duplicate of the same agent’s procedure, and stores another agent’s or other steps', async () => {
    const { call } = extensionApp();
    await call('POST', '/v1/agents', { body: { id: 'support' } });
    await call('POST', '/v1/agents', { body: { id: 'billing' } });
    const body = { name: 'Refund', triggers: ['refund'], steps: ['Check the order', 'Refund it'] };
    const first = await call('POST', '/v1/agents/support/procedures', { body });
    expect(first).toMatchObject({ status: 201, body: { deduplicated: false } });
    const again = await call('POST', '/v1/agents/support/procedures', { body });
    expect(again).toMatchObject({ status: 200, body: { id: first.body.id, deduplicated: true } });
    const theirs = await call('POST', '/v1/agents/billing/procedures', { body });
    expect(theirs).toMatchObject({ status: 201, body: { agent_id: 'billing', deduplicated: false } });
    expect(theirs.body.id).not.toBe(first.body.id);
    const otherSteps = await call('POST', '/v1/agents/support/procedures', {
      body: { ...body, steps: ['Escalate'] },
    });
    expect(otherSteps).toMatchObject({ status: 201, body: { steps: ['Escalate'], deduplicated: false } });
    const listed = await call('GET', '/v1/agents/support/procedures');
    expect(listed.body.procedures).toHaveLength(2);
    expect((await call('GET', '/v1/agents/billing/procedures')).body.procedures).toHaveLength(1);
  });

  it('validates with 400 and hides other agents’ and tenants’ procedures', async () => {
    const { call } = extensionApp();
    for (const body of [
      { name: 'No steps', steps: [] },
      { name: 'Approved already', steps: ['x'], status: 'approved' },
    ]) {
      const answer = await call('POST', '/v1/agents/support/procedures', { body });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('validation_failed');
    }
    for (const [trigger, construct] of [
      ['(', 'syntax RE2 refuses'],
      ['refund(?=ed)', 'lookahead'],
    ]) {
      const answer = await call('POST', '/v1/agents/support/procedures', {
        body: { name: 'Bad trigger', triggers: [trigger], steps: ['x'] },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.error).toMatchObject({ code: 'unsupported_pattern', category: 'unprocessable' });
      expect(answer.body.error.message).toContain(construct);
    }
    expect((await call('GET', '/v1/agents/support/procedures?status=maybe')).status).toBe(400);
    const created = await call('POST', '/v1/agents/support/procedures', {
      body: { name: 'Mine', steps: ['x'] },
    });
    const id = created.body.id;
    expect(
      (await call('PATCH', `/v1/agents/support/procedures/${id}`, { body: { status: 'approved' } })).status,
    ).toBe(400);
    await call('POST', '/v1/agents', { body: { id: 'sales' } });
    expect((await call('GET', `/v1/agents/sales/procedures/${id}`)).status).toBe(404);
    expect((await call('POST', `/v1/agents/sales/procedures/${id}/approve`)).status).toBe(404);
    expect(
      (await call('GET', `/v1/agents/support/procedures/${id}`, { caller: { tenant: 't2' } })).status,
    ).toBe(404);
    expect((await call('GET', '/v1/agents/support/procedures/01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    expect(
      (await call('POST', '/v1/agents/ghost/procedures', { body: { name: 'x', steps: ['x'] } })).status,
    ).toBe(404);
  });
});
