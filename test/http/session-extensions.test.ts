import { describe, expect, it } from 'vitest';
import { useTestServer } from './test-server.js';

const testServer = useTestServer();
const mergePatch = { 'content-type': 'application/merge-patch+json' };

async function putSession(sessionId: string, body: unknown = {}) {
  return testServer().request(`/v1/working-memory/${sessionId}`, { method: 'PUT', body });
}

describe('POST /v1/working-memory/{session_id}/messages (atomic append)', () => {
  it('answers a long append (its echo encoded in turns of its own) as JSON, byte for byte', async () => {
    const content = 'é😀'.repeat(150_000);
    const answer = await testServer().request('/v1/working-memory/long/messages', {
      method: 'POST',
      body: { messages: [{ role: 'user', content }] },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await answer.text();
    expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect((JSON.parse(text) as { messages: { content: string }[] }).messages[0]?.content).toBe(content);
  });

  it('appends in order, creates the session when absent, and returns the new version as ETag', async () => {
    const { request } = testServer();
    const first = await request('/v1/working-memory/chat/messages?namespace=n&user_id=u', {
      method: 'POST',
      body: { messages: [{ role: 'user', content: 'one' }], ttl_seconds: 3600 },
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe('"1"');
    const created = (await first.json()) as {
      session: Record<string, unknown>;
      messages: Record<string, unknown>[];
    };
    expect(created.session).toMatchObject({
      session_id: 'chat',
      namespace: 'n',
      user_id: 'u',
      version: 1,
      message_count: 1,
      ttl_seconds: 3600,
    });
    expect(created.messages[0]).toMatchObject({ role: 'user', content: 'one', persisted_at: null });

    const second = await request('/v1/working-memory/chat/messages?namespace=n&user_id=u', {
      method: 'POST',
      body: {
        messages: [
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'three' },
        ],
      },
    });
    expect(second.headers.get('etag')).toBe('"2"');
    const read = (await (await request('/v1/working-memory/chat?namespace=n&user_id=u')).json()) as {
      messages: { content: string }[];
    };
    expect(read.messages.map((message) => message.content)).toEqual(['one', 'two', 'three']);
  });

  it('answers errors in engram shape and appends nothing on a bad message', async () => {
    const { request } = testServer();
    await putSession('strict', { messages: [{ role: 'user', content: 'kept' }] });
    const bad = await request('/v1/working-memory/strict/messages', {
      method: 'POST',
      body: {
        messages: [
          { role: 'user', content: 'fine' },
          { role: 'user', content: '   ' },
        ],
      },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'validation_failed', category: 'validation' } });
    const invalidJson = await request('/v1/working-memory/strict/messages', {
      method: 'POST',
      body: '{"messages":',
    });
    expect(invalidJson.status).toBe(400);
    expect(await invalidJson.json()).toMatchObject({
      error: { code: 'validation_failed', details: { issues: [{ type: 'json_invalid' }] } },
    });
    const empty = await request('/v1/working-memory/strict/messages', {
      method: 'POST',
      body: { messages: [] },
    });
    expect(empty.status).toBe(400);
    const read = (await (await request('/v1/working-memory/strict')).json()) as { messages: unknown[] };
    expect(read.messages).toHaveLength(1);
  });
});

describe('ETag and If-Match', () => {
  it('a stale If-Match on PUT is 412 and changes nothing; a current one writes', async () => {
    const { request } = testServer();
    const created = await putSession('guarded', { context: 'v1' });
    const tag = created.headers.get('etag') ?? '';
    await putSession('guarded', { context: 'v2' });
    const stale = await request('/v1/working-memory/guarded', {
      method: 'PUT',
      body: { context: 'lost' },
      headers: { 'if-match': tag },
    });
    expect(stale.status).toBe(412);
    expect(await stale.json()).toEqual({ detail: expect.stringMatching(/If-Match/) });
    const current = await request('/v1/working-memory/guarded');
    expect(((await current.json()) as { context: string }).context).toBe('v2');
    const fresh = await request('/v1/working-memory/guarded', {
      method: 'PUT',
      body: { context: 'v3' },
      headers: { 'if-match': current.headers.get('etag') ?? '' },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('etag')).toBe('"3"');
  });

  it('supports `*`, lists of tags, and refuses weak or malformed tags', async () => {
    const { request } = testServer();
    const write = (ifMatch: string, sessionId = 'tags') =>
      request(`/v1/working-memory/${sessionId}`, {
        method: 'PUT',
        body: {},
        headers: { 'if-match': ifMatch },
      });
    expect((await write('*', 'absent-for-star')).status).toBe(412);
    expect((await write('"1"', 'absent-for-tag')).status).toBe(412);
    await putSession('tags');
    expect((await write('*')).status).toBe(200);
    expect((await write('"7", "2"')).status).toBe(200);
    expect((await write('W/"3"')).status).toBe(412);
    expect((await write('three')).status).toBe(412);
    expect((await request('/v1/working-memory/tags')).headers.get('etag')).toBe('"3"');
  });
});

describe('PATCH /v1/working-memory/{session_id} (JSON merge patch)', () => {
  it('merges data, replaces context and ttl, honours If-Match', async () => {
    const { request } = testServer();
    await putSession('patched', { data: { keep: 1, drop: 2, nested: { a: 1 } }, context: 'old' });
    const patch = (body: unknown, headers: Record<string, string> = {}) =>
      request('/v1/working-memory/patched', {
        method: 'PATCH',
        body: JSON.stringify(body),
        headers: { ...mergePatch, ...headers },
      });
    const patched = await patch({
      data: { drop: null, nested: { b: 2 }, added: true },
      context: null,
      ttl_seconds: 60,
    });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"2"');
    expect(await patched.json()).toMatchObject({
      version: 2,
      data: { keep: 1, nested: { a: 1, b: 2 }, added: true },
      context: null,
      ttl_seconds: 60,
    });
    const stale = await patch({ context: 'lost' }, { 'if-match': '"1"' });
    expect(stale.status).toBe(412);
    expect(await stale.json()).toMatchObject({ error: { code: 'precondition_failed' } });
    const read = (await (await request('/v1/working-memory/patched')).json()) as { context: string | null };
    expect(read.context).toBeNull();
  });

  it('is 404 for an absent session, 415 for other media types, 400 for a non-object data', async () => {
    const { request } = testServer();
    const absent = await request('/v1/working-memory/nobody', {
      method: 'PATCH',
      body: '{"data": {}}',
      headers: mergePatch,
    });
    expect(absent.status).toBe(404);
    expect(await absent.json()).toMatchObject({ error: { code: 'not_found' } });
    await putSession('typed');
    const text = await request('/v1/working-memory/typed', {
      method: 'PATCH',
      body: '{}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.headers.get('accept-patch')).toBe('application/merge-patch+json');
    // An EngramError like every other, whose category maps to 415.
    expect(await text.json()).toMatchObject({
      error: { code: 'unsupported_media_type', category: 'unsupported_media_type' },
    });
    const list = await request('/v1/working-memory/typed', {
      method: 'PATCH',
      body: '{"data": [1]}',
      headers: mergePatch,
    });
    expect(list.status).toBe(400);
  });
});
