import { describe, expect, it } from 'vitest';
import type { ScriptedOpenAIServer } from '../support/scripted-openai-server.js';
import { readEvents, useChatServer } from './chat-server.js';

const chatServer = useChatServer({ llm: true });

/** The tenant's session as stored, with every message (null when it does not exist). */
async function storedSession(tenantId: string, sessionId: string, scope: { userId?: string } = {}) {
  return chatServer().engram.sessions.get(
    { tenantId, sessionId, userId: scope.userId ?? null },
    { includeSummarized: true },
  );
}

function modelOf(): ScriptedOpenAIServer {
  const { model } = chatServer();
  if (!model) throw new Error('This server has an LLM');
  return model;
}

/** Polls until `check` passes (the server finishes a turn after its client left). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('The condition never held');
}

/** A stream event the scripted server cannot make from `content`: text, then an error event. */
const brokenStream = [
  { choices: [{ index: 0, delta: { role: 'assistant', content: 'Half an ' }, finish_reason: null }] },
  { error: { message: 'the model crashed' } },
]
  .map((event) => `data: ${JSON.stringify(event)}\n\n`)
  .join('');

describe('POST /v1/sessions/{session_id}/chat', () => {
  it('streams the answer, stores both messages in one append and records the trace', async () => {
    const model = modelOf();
    const created = await chatServer().request('aAdmin', '/v1/agents', {
      method: 'POST',
      body: { id: 'support', system_prompt: 'You support Acme.' },
    });
    expect(created.status).toBe(201);
    model.script({ content: 'Hello Ada, how can I help?' });

    const response = await chatServer().chat('a', 'happy', {
      agent_id: 'support',
      user_id: 'ada',
      message: 'Hi, I am Ada',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toContain('no-cache');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const events = await readEvents(response);

    const deltas = events.filter((event) => event.type === 'delta').map((event) => event.data.text);
    expect(deltas.join('')).toBe('Hello Ada, how can I help?');
    expect(deltas.length).toBeGreaterThan(1);
    expect(events.map((event) => event.type).at(-1)).toBe('done');
    expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
    const done = events.at(-1)?.data;
    expect(done.agent).toEqual({ id: 'support', version: 1 });
    expect(done.model).toBe('openai:scripted');
    expect(done.finish_reason).toBe('stop');
    expect(done.session).toEqual({ version: expect.any(Number), message_count: 2 });
    expect(done.trace).toMatchObject({ degraded: false, history: { candidates: 0, kept: 0 } });
    expect(done.trace.context_tokens).toBeGreaterThan(0);
    expect(done.trace.sections.system).toBeGreaterThan(0);

    // The model saw the agent's system prompt and the message.
    const sent = model.requests.at(-1)?.body;
    expect(sent?.stream).toBe(true);
    expect(sent?.max_tokens).toBe(1_000);
    expect(sent?.messages).toEqual([
      { role: 'system', content: 'You support Acme.' },
      { role: 'user', content: 'Hi, I am Ada' },
    ]);

    const session = await storedSession('tenant-a', 'happy', { userId: 'ada' });
    expect(session?.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Hi, I am Ada'],
      ['assistant', 'Hello Ada, how can I help?'],
    ]);
    expect(session?.messages.map((message) => message.id)).toEqual([
      done.messages.user.id,
      done.messages.assistant.id,
    ]);
    const traces = await chatServer().engram.traces.list({
      tenantId: 'tenant-a',
      sessionId: 'happy',
      userId: 'ada',
    });
    expect(traces.total).toBe(1);
    expect(traces.traces[0]?.agentId).toBe('support');

    // The request is logged and measured like any other, once its stream has ended.
    const metrics = await (await chatServer().request('aAdmin', '/metrics')).text();
    expect(metrics).toMatch(
      /engram_http_request_duration_seconds_count\{method="POST",route="\/v1\/sessions\/:session_id\/chat",status="200"\} 1/,
    );

    // The next turn's context holds the first one.
    model.script({ content: 'You are Ada.' });
    const second = await readEvents(
      await chatServer().chat('a', 'happy', { agent_id: 'support', user_id: 'ada', message: 'Who am I?' }),
    );
    expect(second.at(-1)?.type).toBe('done');
    expect(model.requests.at(-1)?.body.messages?.map((message) => message.content)).toEqual([
      'You support Acme.',
      'Hi, I am Ada',
      'Hello Ada, how can I help?',
      'Who am I?',
    ]);
    expect((await storedSession('tenant-a', 'happy', { userId: 'ada' }))?.messages).toHaveLength(4);
  });

  it('finishes and stores the whole turn when the client disconnects mid-stream', async () => {
    const model = modelOf();
    const pieces = ['One ', 'two ', 'three ', 'four ', 'five ', 'six ', 'seven ', 'eight.'];
    model.script({ content: pieces.join(''), chunks: pieces, chunkDelayMs: 100 });
    const controller = new AbortController();
    const response = await chatServer().chat(
      'a',
      'gone',
      { message: 'Count to eight' },
      { signal: controller.signal },
    );
    expect(response.status).toBe(200);
    const first = await readEvents(response, 1);
    expect(first[0]).toEqual({ type: 'delta', data: { text: 'One ' } });
    controller.abort();
    // The model is still answering (about 0.7 s left): nothing is stored yet, not even the question.
    expect(await storedSession('tenant-a', 'gone')).toBeNull();

    // The session then appears with both messages at once.
    const session = await eventually(
      () => storedSession('tenant-a', 'gone'),
      (found) => found !== null,
    );
    expect(session?.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Count to eight'],
      ['assistant', pieces.join('')],
    ]);
  });

  it('answers a model failure before the first token as JSON and stores nothing', async () => {
    const model = modelOf();
    model.script({ status: 500, body: { error: { message: 'overloaded' } } });
    const failed = await chatServer().chat('a', 'early-error', { message: 'Hello?' });
    expect(failed.status).toBe(503);
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('llm_unavailable');

    model.script({ status: 429, headers: { 'retry-after': '7' } });
    const limited = await chatServer().chat('a', 'early-error', { message: 'Hello?' });
    expect(limited.status).toBe(503);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('llm_rate_limited');

    model.script({ content: '', chunks: [] });
    const empty = await chatServer().chat('a', 'early-error', { message: 'Hello?' });
    expect(empty.status).toBe(503);
    expect(((await empty.json()) as { error: { code: string } }).error.code).toBe('llm_response_invalid');
    expect(await storedSession('tenant-a', 'early-error')).toBeNull();
  });

  it('ends a stream that fails midway with an error event and stores nothing', async () => {
    const model = modelOf();
    model.script({ raw: brokenStream, contentType: 'text/event-stream' });
    const response = await chatServer().chat('a', 'late-error', { message: 'Tell me a story' });
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    expect(events.map((event) => event.type)).toEqual(['delta', 'error']);
    expect(events[1]?.data).toMatchObject({ code: 'llm_unavailable', category: 'unavailable' });
    expect(await storedSession('tenant-a', 'late-error')).toBeNull();

    // A session that already had turns keeps exactly those.
    model.script({ content: 'Fine.' });
    await readEvents(await chatServer().chat('a', 'late-error', { message: 'First' }));
    model.script({ raw: brokenStream, contentType: 'text/event-stream' });
    await readEvents(await chatServer().chat('a', 'late-error', { message: 'Second' }));
    const session = await storedSession('tenant-a', 'late-error');
    expect(session?.messages.map((message) => message.content)).toEqual(['First', 'Fine.']);
  });

  it('rejects invalid requests with engram validation errors before calling the model', async () => {
    const model = modelOf();
    const before = model.requests.length;
    for (const body of [{}, { message: '' }, { message: 'hi', extra: true }, { message: 7 }, 'not json']) {
      const response = await chatServer().chat('a', 'invalid', body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
    }
    const blank = await chatServer().chat('a', 'invalid', { message: '   ' });
    expect(blank.status).toBe(400);
    const unknownAgent = await chatServer().chat('a', 'invalid', { agent_id: 'ghost', message: 'hi' });
    expect(unknownAgent.status).toBe(404);
    expect(((await unknownAgent.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect(model.requests.length).toBe(before);
    expect(await storedSession('tenant-a', 'invalid')).toBeNull();
  });

  it('scopes turns to the caller’s tenant and needs the write permission', async () => {
    const model = modelOf();
    const created = await chatServer().request('aAdmin', '/v1/agents', {
      method: 'POST',
      body: { id: 'a-only', system_prompt: 'Tenant A agent.' },
    });
    expect(created.status).toBe(201);
    const foreignAgent = await chatServer().chat('b', 'shared-id', { agent_id: 'a-only', message: 'hi' });
    expect(foreignAgent.status).toBe(404);

    model.script({ content: 'Answer for A.' }, { content: 'Answer for B.' });
    await readEvents(await chatServer().chat('a', 'shared-id', { message: 'From A' }));
    await readEvents(await chatServer().chat('b', 'shared-id', { message: 'From B' }));
    // B's turn saw none of A's session.
    expect(model.requests.at(-1)?.body.messages?.map((message) => message.content)).not.toContain('From A');
    const a = await storedSession('tenant-a', 'shared-id');
    const b = await storedSession('tenant-b', 'shared-id');
    expect(a?.messages.map((message) => message.content)).toEqual(['From A', 'Answer for A.']);
    expect(b?.messages.map((message) => message.content)).toEqual(['From B', 'Answer for B.']);

    const inspector = await chatServer().chat('aInspector', 'shared-id', { message: 'hi' });
    expect(inspector.status).toBe(403);
    const anonymous = await fetch(`${chatServer().url}/v1/sessions/shared-id/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi' }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('is documented in the OpenAPI document as an event stream', async () => {
    const response = await fetch(`${chatServer().url}/openapi.json`);
    const document = (await response.json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>>;
    };
    const operation = document.paths['/v1/sessions/{session_id}/chat']?.post;
    expect(Object.keys(operation?.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
  });
});
