import { describe, expect, it } from 'vitest';
import { useTestServer } from './test-server.js';

const testServer = useTestServer();
const json = async (response: Response) => response.json() as Promise<Record<string, unknown>>;
const isoSecondsOrMicros = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/;

const workingMemoryFields = [
  'messages',
  'memories',
  'data',
  'context',
  'user_id',
  'tokens',
  'session_id',
  'namespace',
  'long_term_memory_strategy',
  'ttl_seconds',
  'last_accessed',
  'created_at',
  'updated_at',
  'context_percentage_total_used',
  'context_percentage_until_summarization',
];

describe('PUT and GET /v1/working-memory/{session_id} (AMS §4.3–4.5)', () => {
  it('answers Appendix A: every field present, pydantic datetimes, deprecation header, data as sent', async () => {
    const { request } = testServer();
    const body = {
      session_id: 'ignored-by-the-server',
      namespace: 'app',
      user_id: 'u1',
      messages: [
        { id: 'm1', role: 'user', content: 'hi', created_at: '2025-06-01T10:00:00.250Z' },
        { role: 'assistant', content: 'hello' },
      ],
      data: { k: [1, { x: null }] },
      unknown_field: true,
    };
    const put = await request('/v1/working-memory/s1', { method: 'PUT', body });
    expect(put.status).toBe(200);
    expect(put.headers.get('x-deprecation-warning')).toMatch(
      /^messages\[\]\.created_at will become required/,
    );
    expect(put.headers.get('etag')).toBe('"1"');
    const written = await json(put);
    expect(Object.keys(written).sort()).toEqual([...workingMemoryFields].sort());
    expect(written).toMatchObject({
      session_id: 's1',
      namespace: 'app',
      user_id: 'u1',
      data: { k: [1, { x: null }] },
      context: null,
      ttl_seconds: null,
      long_term_memory_strategy: { strategy: 'discrete', config: {} },
      context_percentage_total_used: null,
      context_percentage_until_summarization: null,
    });
    const messages = written.messages as Record<string, unknown>[];
    expect(messages[0]).toEqual({
      role: 'user',
      content: 'hi',
      id: 'm1',
      created_at: '2025-06-01T10:00:00.250000Z',
      persisted_at: null,
      discrete_memory_extracted: 'f',
    });
    expect(messages[1]?.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(typeof written.tokens).toBe('number');

    // GET without user_id still finds the session (unique match), with whole-second session times.
    const get = await request('/v1/working-memory/s1?namespace=app');
    expect(get.status).toBe(200);
    expect(get.headers.get('etag')).toBe('"1"');
    const read = await json(get);
    expect(read.messages).toEqual(written.messages);
    for (const field of ['created_at', 'updated_at', 'last_accessed']) {
      expect(read[field]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    }
    expect(written.created_at).toMatch(isoSecondsOrMicros);
  });

  it('omits the deprecation header when every message has created_at', async () => {
    const { request } = testServer();
    const put = await request('/v1/working-memory/dated', {
      method: 'PUT',
      body: { messages: [{ role: 'user', content: 'hi', created_at: 1_700_000_000 }] },
    });
    expect(put.headers.get('x-deprecation-warning')).toBeNull();
    const [message] = (await json(put)).messages as Record<string, unknown>[];
    expect(message?.created_at).toBe('2023-11-14T22:13:20Z');
  });

  it('keeps tool messages, which AMS messages write without a call id', async () => {
    const { request } = testServer();
    const messages = [
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: 'Checking the forecast.' },
      { role: 'tool', content: '{"forecast": "rain"}' },
      { role: 'assistant', content: 'Rain today.' },
    ];
    const put = await request('/v1/working-memory/tools', { method: 'PUT', body: { messages } });
    expect(put.status).toBe(200);
    const get = (await json(await request('/v1/working-memory/tools'))) as {
      messages: { role: string; content: string }[];
    };
    expect(get.messages.map(({ role, content }) => ({ role, content }))).toEqual(messages);
  });

  it('accepts `{}`, echoes null data on PUT and shows `{}` on GET', async () => {
    const { request } = testServer();
    const put = await json(await request('/v1/working-memory/empty', { method: 'PUT', body: {} }));
    expect(put).toMatchObject({ messages: [], memories: [], data: null, namespace: null, user_id: null });
    const get = await json(await request('/v1/working-memory/empty'));
    expect(get.data).toEqual({});
  });

  it('replaces the whole session and keeps the first created_at', async () => {
    const { request } = testServer();
    const first = await json(
      await request('/v1/working-memory/replace', {
        method: 'PUT',
        body: { messages: [{ role: 'user', content: 'one' }], context: 'summary', data: { a: 1 } },
      }),
    );
    const second = await json(
      await request('/v1/working-memory/replace', {
        method: 'PUT',
        body: { messages: [{ role: 'user', content: 'two' }] },
      }),
    );
    expect((second.messages as { content: string }[]).map((message) => message.content)).toEqual(['two']);
    expect(second).toMatchObject({ context: null, data: null });
    expect(Date.parse(String(second.created_at))).toBe(Date.parse(String(first.created_at)));
    const backdated = await json(
      await request('/v1/working-memory/replace', {
        method: 'PUT',
        body: { created_at: '2024-01-02 03:04:05' },
      }),
    );
    expect(backdated.created_at).toBe('2024-01-02T03:04:05Z');
  });

  it('keys sessions by (namespace, user_id, session_id); ambiguous ids are not found', async () => {
    const { request } = testServer();
    for (const namespace of ['a', 'b']) {
      await request('/v1/working-memory/twin', { method: 'PUT', body: { namespace, data: { namespace } } });
    }
    expect((await request('/v1/working-memory/twin')).status).toBe(404);
    const inB = await json(await request('/v1/working-memory/twin?namespace=b'));
    expect(inB.data).toEqual({ namespace: 'b' });
    const missing = await request('/v1/working-memory/never-written');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Session never-written not found' });
  });

  it('stores working-memory memories as full 21-field records', async () => {
    const { request } = testServer();
    const put = await json(
      await request('/v1/working-memory/with-memories', {
        method: 'PUT',
        body: {
          memories: [{ text: 'User likes tea', topics: ['drinks'] }],
          long_term_memory_strategy: { strategy: 'summary' },
        },
      }),
    );
    const [memory] = put.memories as Record<string, unknown>[];
    expect(Object.keys(memory ?? {})).toHaveLength(21);
    expect(memory).toMatchObject({
      text: 'User likes tea',
      topics: ['drinks'],
      entities: [],
      memory_type: 'message',
      discrete_memory_extracted: 'f',
      persisted_at: null,
      pinned: false,
      access_count: 0,
      extraction_strategy: 'summary',
      metadata: {},
    });
    expect(memory?.id).toMatch(/^[0-9A-Z]{26}$/);
  });

  it('truncates the oldest messages on GET to the model window and computes the percentages', async () => {
    const { request } = testServer();
    const messages = Array.from({ length: 6 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `message ${index} ${'word '.repeat(20)}`,
      created_at: new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString(),
    }));
    const put = await json(
      await request('/v1/working-memory/window?context_window_max=1000', {
        method: 'PUT',
        body: { messages },
      }),
    );
    expect(put.context_percentage_total_used).toBeGreaterThan(0);
    expect(put.context_percentage_until_summarization).toBeGreaterThan(
      Number(put.context_percentage_total_used),
    );
    const narrow = await json(await request('/v1/working-memory/window?context_window_max=60'));
    const kept = narrow.messages as { content: string }[];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(6);
    expect(kept.at(-1)?.content).toMatch(/^message 5/);
    expect(narrow.context_percentage_total_used).toBeLessThanOrEqual(100);
    const tiny = await json(await request('/v1/working-memory/window?context_window_max=1'));
    expect((tiny.messages as unknown[]).length).toBe(1);
    expect(tiny.context_percentage_total_used).toBe(100);
    const byModel = await json(await request('/v1/working-memory/window?model_name=gpt-3.5-turbo'));
    expect((byModel.messages as unknown[]).length).toBe(6);
    expect(byModel.context_percentage_total_used).toBeGreaterThan(0);
    const recent = await json(await request('/v1/working-memory/window?recent_messages_limit=2'));
    expect((recent.messages as { content: string }[]).map((message) => message.content.slice(0, 9))).toEqual([
      'message 4',
      'message 5',
    ]);
    // The stored session is untouched by a truncating read.
    expect(((await json(await request('/v1/working-memory/window'))).messages as unknown[]).length).toBe(6);
  });

  it('reports 0 percent for a session without messages', async () => {
    const { request } = testServer();
    await request('/v1/working-memory/no-messages', { method: 'PUT', body: {} });
    const read = await json(await request('/v1/working-memory/no-messages?model_name=gpt-4o'));
    expect(read.context_percentage_total_used).toBe(0);
    expect(read.context_percentage_until_summarization).toBe(0);
  });
});

describe('DELETE and list (AMS §4.2, §4.6)', () => {
  it('DELETE answers ok whether or not the session exists, then GET is 404 and the id is not listed', async () => {
    const { request } = testServer();
    await request('/v1/working-memory/doomed', { method: 'PUT', body: { namespace: 'del', user_id: 'u' } });
    const deleted = await request('/v1/working-memory/doomed?namespace=del', {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
    });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ status: 'ok' });
    expect((await request('/v1/working-memory/doomed?namespace=del&user_id=u')).status).toBe(404);
    const again = await request('/v1/working-memory/doomed', { method: 'DELETE' });
    expect(await again.json()).toEqual({ status: 'ok' });
    const listed = await json(await request('/v1/working-memory/?namespace=del'));
    expect(listed).toEqual({ sessions: [], total: 0 });
  });

  it('lists newest first with a true total, paged by limit and offset, filtered by namespace and user', async () => {
    const { request } = testServer();
    for (const id of ['l1', 'l2', 'l3']) {
      await request(`/v1/working-memory/${id}`, {
        method: 'PUT',
        body: { namespace: 'list', user_id: id === 'l3' ? 'other' : 'u' },
      });
    }
    expect(await json(await request('/v1/working-memory/?namespace=list'))).toEqual({
      sessions: ['l3', 'l2', 'l1'],
      total: 3,
    });
    expect(await json(await request('/v1/working-memory/?namespace=list&limit=1&offset=1'))).toEqual({
      sessions: ['l2'],
      total: 3,
    });
    expect(await json(await request('/v1/working-memory?namespace=list&user_id=u'))).toEqual({
      sessions: ['l2', 'l1'],
      total: 2,
    });
    // Repeated parameters keep the last value; numbers may arrive as text.
    expect(await json(await request('/v1/working-memory/?namespace=x&namespace=list&limit=2'))).toEqual({
      sessions: ['l3', 'l2'],
      total: 3,
    });
  });
});

describe('GET /v1/working-memory/{id}?include_summarized (engram extension)', () => {
  it('adds the summarized messages, each marked, and leaves the AMS answer unchanged without it', async () => {
    const { request, engram } = testServer();
    const messages = ['one', 'two', 'three', 'four'].map((content, index) => ({
      id: `m${index + 1}`,
      role: index % 2 ? 'assistant' : 'user',
      content,
      created_at: `2025-06-01T10:00:0${index}Z`,
    }));
    await request('/v1/working-memory/summed', { method: 'PUT', body: { namespace: 'sum', messages } });
    await engram.sessions.recordSummary(
      { sessionId: 'summed', namespace: 'sum' },
      { context: 'They counted to two.', throughSeq: 2, expectedThroughSeq: 0 },
    );
    const path = '/v1/working-memory/summed?namespace=sum';
    const plain = async () => json(await request(path));
    const whole = async () => json(await request(`${path}&include_summarized=true`));
    const amsKeys = ['content', 'created_at', 'discrete_memory_extracted', 'id', 'persisted_at', 'role'];
    // Each read twice and interleaved: the response cache keeps the two answers apart.
    for (let round = 0; round < 2; round++) {
      const read = await plain();
      expect(read.context).toBe('They counted to two.');
      expect(Object.keys(read).sort()).toEqual([...workingMemoryFields].sort());
      const shown = read.messages as Record<string, unknown>[];
      expect(shown.map((message) => message.id)).toEqual(['m3', 'm4']);
      for (const message of shown) expect(Object.keys(message).sort()).toEqual(amsKeys);
      const all = (await whole()).messages as Record<string, unknown>[];
      expect(all.map((message) => [message.id, message.summarized])).toEqual([
        ['m1', true],
        ['m2', true],
        ['m3', false],
        ['m4', false],
      ]);
    }
    expect(await json(await request(`${path}&include_summarized=false`))).toEqual(await plain());
    expect((await request(`${path}&include_summarized=maybe`)).status).toBe(422);
  });
});
