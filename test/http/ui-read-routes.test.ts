import { describe, expect, it } from 'vitest';
import { useExtensionApp } from './extension-app.js';

const extensionApp = useExtensionApp();
const inspector = { role: 'inspector' as const };

describe('GET /v1/sessions', () => {
  it('lists sessions with their keys, newest first, filtered, with the true total', async () => {
    const { call, engram } = extensionApp();
    for (const [sessionId, namespace, userId] of [
      ['s1', 'shop', 'ada'],
      ['s2', 'shop', 'bob'],
      ['s3', null, 'ada'],
    ] as const) {
      await engram.sessions.append({ tenantId: 't1', sessionId, namespace, userId }, [
        { role: 'user', content: `hello from ${sessionId}` },
      ]);
    }
    await engram.sessions.append({ tenantId: 'other', sessionId: 'x', namespace: null, userId: null }, [
      { role: 'user', content: 'another tenant' },
    ]);
    const all = await call('GET', '/v1/sessions?limit=2', { caller: inspector });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.sessions.map((session: { session_id: string }) => session.session_id)).toEqual([
      's3',
      's2',
    ]);
    expect(all.body.sessions[0]).toMatchObject({ namespace: null, user_id: 'ada', message_count: 1 });
    const ada = await call('GET', '/v1/sessions?user_id=ada&namespace=shop');
    expect(ada.body).toMatchObject({
      total: 1,
      sessions: [{ session_id: 's1', namespace: 'shop', user_id: 'ada' }],
    });
    expect((await call('GET', '/v1/sessions?limit=0')).status).toBe(400);
  });
});

describe('GET /v1/jobs', () => {
  it('lists the tenant’s jobs newest first with state, attempts and payload scalars', async () => {
    const { call, engram } = extensionApp();
    await engram.jobs.enqueue('t1', 'ui-test-a', {
      session_id: 'chat-1',
      text: 'x'.repeat(500),
      nested: { a: 1 },
    });
    await engram.jobs.enqueue('t1', 'ui-test-b', { session_id: 'chat-2' });
    await engram.jobs.enqueue('other', 'ui-test-a', { session_id: 'secret' });
    const listed = await call('GET', '/v1/jobs?type=ui-test-a', { caller: inspector });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(1);
    const [job] = listed.body.jobs;
    expect(job).toMatchObject({ type: 'ui-test-a', status: 'pending', attempts: 0, error: null });
    expect(job.payload).toEqual({ session_id: 'chat-1', text: 'x'.repeat(200) });
    const both = await call('GET', '/v1/jobs?status=pending');
    expect(both.body.jobs.map((entry: { type: string }) => entry.type).slice(0, 2)).toEqual([
      'ui-test-b',
      'ui-test-a',
    ]);
    expect((await call('GET', '/v1/jobs?status=done')).status).toBe(400);
  });
});

describe('GET /v1/agents/{agent_id}/knowledge/{document_id}/chunks', () => {
  it('pages a document’s chunks in document order with their headings; unknown documents are 404', async () => {
    const { call } = extensionApp();
    const uploaded = await call('POST', '/v1/agents/default/knowledge', {
      body: {
        name: 'Guide.md',
        content: '# Guide\n\n## One\nFirst part.\n\n## Two\nSecond part.\n\n## Three\nThird part.',
      },
    });
    expect(uploaded.status).toBe(201);
    const path = `/v1/agents/default/knowledge/${uploaded.body.document_id}/chunks`;
    const first = await call('GET', `${path}?limit=2`, { caller: inspector });
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(uploaded.body.chunks);
    expect(first.body.chunks.map((chunk: { index: number }) => chunk.index)).toEqual([0, 1]);
    expect(first.body.chunks[0].headings).toEqual(['Guide', 'One']);
    expect(first.body.chunks[0].text).toContain('First part.');
    const rest = await call('GET', `${path}?limit=2&offset=2`);
    expect(rest.body.chunks[0].text).toContain('Third part.');
    expect((await call('GET', '/v1/agents/default/knowledge/nope/chunks')).status).toBe(404);
    expect((await call('GET', path, { caller: { tenant: 'other' } })).status).toBe(404);
  });
});

describe('POST /v1/context/preview', () => {
  const session = { tenantId: 't1', sessionId: 'preview-1', namespace: null, userId: 'cy' };
  const body = { session_id: 'preview-1', user_id: 'cy', message: 'Where does Cy live?', format: 'neutral' };

  it('answers what /v1/context would, records no trace, counts no access, and an inspector may call it', async () => {
    const { call, engram } = extensionApp();
    await engram.sessions.append(session, [{ role: 'user', content: 'Hi there' }]);
    const [memory] = (await engram.memories.create('t1', [{ text: 'Cy lives in Oslo.', userId: 'cy' }]))
      .inserted;
    const tracesOf = async () => (await engram.traces.list(session)).total;
    const accessed = async () => (await engram.memories.get('t1', memory?.id ?? '')).accessCount;
    const before = { traces: await tracesOf(), accesses: await accessed() };

    const preview = await call('POST', '/v1/context/preview', { body, caller: inspector });
    expect(preview.status).toBe(200);
    expect(
      preview.body.messages.some((entry: { content: string }) => entry.content.includes('Cy lives in Oslo.')),
    ).toBe(true);
    expect({ traces: await tracesOf(), accesses: await accessed() }).toEqual(before);

    expect((await call('POST', '/v1/context', { body, caller: inspector })).status).toBe(403);
    const real = await call('POST', '/v1/context', { body });
    expect(real.body.messages).toEqual(preview.body.messages);
    expect(await tracesOf()).toBe(before.traces + 1);
    // Access statistics may be written behind the request: wait for them.
    await expect.poll(accessed, { timeout: 5_000 }).toBeGreaterThan(before.accesses);
  });
});
