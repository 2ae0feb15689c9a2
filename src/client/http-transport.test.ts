import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createEngramClient } from './engram-client.js';
import { EngramClientError } from './engram-client-error.js';

const fast = { baseDelayMs: 1, maxDelayMs: 20 };
/** A JSON answer; a function, so that each request gets a fresh one. */
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
const engram503 = (code: string, details?: Record<string, unknown>) =>
  json(503, { error: { code, category: 'unavailable', message: `${code} happened`, details } });

/**
 * A fetch that answers from `answers` in turn (the last one again once they run out): a function is
 * called with the request's init, an Error is thrown; it records each request's method and path.
 */
function scripted(...answers: Array<Error | ((init: RequestInit) => Response | Promise<Response>)>) {
  const calls: string[] = [];
  const fetch = (async (input: string | URL | Request, init: RequestInit = {}) => {
    calls.push(`${init.method} ${new URL(String(input)).pathname}`);
    const answer = answers.length > 1 ? answers.shift() : answers[0];
    if (answer instanceof Error) throw answer;
    return (answer as (init: RequestInit) => Response | Promise<Response>)(init);
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

/** What a call threw (it must throw). */
async function thrown(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error,
  );
}

/** A fetch that never answers but rejects with the signal's reason when it aborts. */
const hung = (init: RequestInit) =>
  new Promise<Response>((_resolve, reject) => {
    init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
  });

const networkFailure = (code: string) =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) });

describe('retries (item 1): POSTs that create or append are not sent twice on an ambiguous 503', () => {
  it('does not retry POST and PATCH on store_unavailable or a 503 without a code', async () => {
    const { fetch, calls } = scripted(engram503('store_unavailable'));
    const client = createEngramClient({ baseUrl: 'http://engram', fetch, retry: fast });
    const writes: Array<[string, () => Promise<unknown>]> = [
      [
        'POST /v1/working-memory/s/messages',
        () => client.sessions.append('s', { messages: [{ role: 'user', content: 'x' }] }),
      ],
      [
        'POST /v1/long-term-memory',
        () => client.longTermMemory.create({ memories: [{ id: 'm', text: 'x' }] }),
      ],
      ['POST /v1/agents/a/knowledge', () => client.knowledge.upload('a', { name: 'n', content: 'c' })],
      ['POST /v1/agents/a/procedures', () => client.procedures.propose('a', { name: 'p', steps: ['s'] })],
      ['POST /v1/sessions/s/chat', () => client.chat('s', { message: 'hi' })],
      ['PATCH /v1/long-term-memory/m', () => client.longTermMemory.edit('m', { text: 'y' })],
    ];
    for (const [request, write] of writes) {
      calls.length = 0;
      expect(await thrown(write())).toMatchObject({ status: 503, code: 'store_unavailable' });
      expect(calls).toEqual([request]);
    }
    const ams = scripted(json(503, { detail: 'The store is unavailable' }));
    const amsClient = createEngramClient({ baseUrl: 'http://engram', fetch: ams.fetch, retry: fast });
    expect(
      await thrown(amsClient.longTermMemory.create({ memories: [{ id: 'm', text: 'x' }] })),
    ).toMatchObject({
      code: 'unavailable',
    });
    expect(ams.calls).toHaveLength(1);
  });

  it('keeps retrying a 503 of GET, PUT and DELETE', async () => {
    const { fetch, calls } = scripted(engram503('store_unavailable'));
    const client = createEngramClient({ baseUrl: 'http://engram', fetch, retry: { ...fast, maxRetries: 2 } });
    await thrown(client.sessions.get('s'));
    await thrown(client.sessions.put('s', { messages: [] }));
    await thrown(client.sessions.delete('s'));
    expect(calls).toEqual([
      ...Array(3).fill('GET /v1/working-memory/s'),
      ...Array(3).fill('PUT /v1/working-memory/s'),
      ...Array(3).fill('DELETE /v1/working-memory/s'),
    ]);
  });

  it('never retries llm_not_configured, even for chat', async () => {
    const { fetch, calls } = scripted(engram503('llm_not_configured'));
    const client = createEngramClient({ baseUrl: 'http://engram', fetch });
    const started = Date.now();
    expect(await thrown(client.chat('s', { message: 'hi' }))).toMatchObject({ code: 'llm_not_configured' });
    expect(calls).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(200);
  });

  it('retries a POST refused before any work: a 429, an open circuit, chat before its stream', async () => {
    const stream = () =>
      new Response('event: done\ndata: {}\n\n', { headers: { 'content-type': 'text/event-stream' } });
    const { fetch, calls } = scripted(
      json(429, { detail: 'slow down' }, { 'retry-after': '0' }),
      engram503('llm_unavailable', { circuit: 'open', retryAfterMs: 1_000 }),
      json(200, { status: 'ok' }),
    );
    const client = createEngramClient({ baseUrl: 'http://engram', fetch, retry: fast });
    expect(await client.longTermMemory.create({ memories: [{ id: 'm', text: 'x' }] })).toEqual({
      status: 'ok',
    });
    expect(calls).toHaveLength(3);

    // The chat route stores the turn after its stream: a model failure before it stored nothing.
    const chat = scripted(engram503('llm_unavailable'), engram503('llm_timeout'), stream);
    const chatClient = createEngramClient({ baseUrl: 'http://engram', fetch: chat.fetch, retry: fast });
    const events = [];
    for await (const event of await chatClient.chat('s', { message: 'hi' })) events.push(event.type);
    expect(events).toEqual(['done']);
    expect(chat.calls).toHaveLength(3);
  });

  it('honours Retry-After on a 429', async () => {
    const { fetch, calls } = scripted(
      json(429, { detail: 'slow down' }, { 'retry-after': '1' }),
      json(200, {}),
    );
    const client = createEngramClient({ baseUrl: 'http://engram', fetch, retry: { maxDelayMs: 60_000 } });
    const started = Date.now();
    await client.sessions.append('s', { messages: [{ role: 'user', content: 'x' }] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(calls).toHaveLength(2);
  });
});

describe('retry waits (item 3)', () => {
  it('leave no abort listener on a signal shared by many calls', async () => {
    const shared = new AbortController();
    let count = 0;
    const flip = (async () =>
      count++ % 2 === 0 ? engram503('store_unavailable')() : json(200, { now: 1 })()) as typeof fetch;
    const client = createEngramClient({ baseUrl: 'http://engram', fetch: flip, retry: fast });
    for (let call = 0; call < 20; call++) await client.health({ signal: shared.signal });
    expect(count).toBe(40);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('are cut short by an abort, which rejects with the signal’s reason', async () => {
    const { fetch } = scripted(json(503, {}, { 'retry-after': '5' }));
    const client = createEngramClient({ baseUrl: 'http://engram', fetch, retry: { maxDelayMs: 60_000 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user abort')), 30);
    const started = Date.now();
    expect(await thrown(client.health({ signal: controller.signal }))).toMatchObject({
      message: 'user abort',
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('retry options (item 4)', () => {
  it('keeps the defaults for options given as undefined', async () => {
    const { fetch, calls } = scripted(engram503('store_unavailable'));
    const client = createEngramClient({
      baseUrl: 'http://engram',
      fetch,
      retry: { maxRetries: undefined, baseDelayMs: 1, maxDelayMs: undefined },
    });
    const controller = new AbortController();
    const guard = setTimeout(() => controller.abort(new Error('still retrying after 5 s')), 5_000);
    expect(await thrown(client.health({ signal: controller.signal }))).toMatchObject({
      code: 'store_unavailable',
    });
    clearTimeout(guard);
    expect(calls).toHaveLength(4);
  });

  it('refuses a value out of range, naming the option', () => {
    const make = (retry: object) => () => createEngramClient({ baseUrl: 'http://engram', retry });
    expect(make({ maxRetries: -1 })).toThrow(/retry\.maxRetries/);
    expect(make({ maxRetries: 1.5 })).toThrow(/retry\.maxRetries/);
    expect(make({ maxRetries: Number.POSITIVE_INFINITY })).toThrow(/retry\.maxRetries/);
    expect(make({ baseDelayMs: Number.NaN })).toThrow(/retry\.baseDelayMs/);
    expect(make({ maxDelayMs: '100' })).toThrow(/retry\.maxDelayMs/);
    expect(() => createEngramClient({ baseUrl: 'http://engram', timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});

describe('network errors (item 5)', () => {
  it('throw EngramClientError network_error with the cause, after retrying a GET', async () => {
    // A port nobody listens on: the connection is refused.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    let attempts = 0;
    const counting: typeof fetch = (input, init) => {
      attempts++;
      return fetch(input, init);
    };
    const client = createEngramClient({ baseUrl: `http://127.0.0.1:${port}`, fetch: counting, retry: fast });
    const error = await thrown(client.health());
    expect(error).toBeInstanceOf(EngramClientError);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(attempts).toBe(4);
  });

  it('retry a POST only when the connection was refused (the request never left)', async () => {
    const reset = scripted(networkFailure('ECONNRESET'));
    const client = createEngramClient({ baseUrl: 'http://engram', fetch: reset.fetch, retry: fast });
    const error = await thrown(client.sessions.append('s', { messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(reset.calls).toHaveLength(1);

    const refused = scripted(networkFailure('ECONNREFUSED'), json(200, { status: 'ok' }));
    const again = createEngramClient({ baseUrl: 'http://engram', fetch: refused.fetch, retry: fast });
    expect(await again.longTermMemory.create({ memories: [{ id: 'm', text: 'x' }] })).toEqual({
      status: 'ok',
    });
    expect(refused.calls).toHaveLength(2);
  });
});

describe('timeoutMs (item 5)', () => {
  it('aborts a hung call with EngramClientError timeout; a call may override it', async () => {
    const { fetch, calls } = scripted(hung);
    const client = createEngramClient({ baseUrl: 'http://engram', fetch, timeoutMs: 50 });
    const started = Date.now();
    const error = await thrown(client.health());
    expect(error).toBeInstanceOf(EngramClientError);
    expect(error).toMatchObject({ status: 0, code: 'timeout', details: { timeoutMs: 50 } });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(calls).toHaveLength(1);
    expect(await thrown(client.health({ timeoutMs: 80 }))).toMatchObject({ details: { timeoutMs: 80 } });
  });

  it('bounds the retries and their waits too, and a fetch that ignores the signal', async () => {
    const { fetch } = scripted(json(503, {}, { 'retry-after': '30' }));
    const client = createEngramClient({ baseUrl: 'http://engram', fetch, retry: { maxDelayMs: 60_000 } });
    expect(await thrown(client.health({ timeoutMs: 50 }))).toMatchObject({ code: 'timeout' });
    const deaf = (async () => new Promise<Response>(() => undefined)) as typeof globalThis.fetch;
    const deafClient = createEngramClient({ baseUrl: 'http://engram', fetch: deaf, timeoutMs: 50 });
    expect(await thrown(deafClient.health())).toMatchObject({ code: 'timeout' });
  });

  it('keeps the caller’s abort reason, and stops at the start of a chat stream', async () => {
    const { fetch } = scripted(hung);
    const client = createEngramClient({ baseUrl: 'http://engram', fetch, timeoutMs: 5_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user abort')), 20);
    expect(await thrown(client.health({ signal: controller.signal }))).toMatchObject({
      message: 'user abort',
    });

    const slowStream = (init: RequestInit) => {
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        start(stream) {
          setTimeout(() => {
            stream.enqueue(encoder.encode('event: delta\ndata: {"text":"late"}\n\n'));
            stream.close();
          }, 100);
        },
      });
      expect(init.signal).toBeDefined();
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
    };
    const chat = createEngramClient({
      baseUrl: 'http://engram',
      fetch: scripted(slowStream).fetch,
      timeoutMs: 30,
    });
    const events = [];
    for await (const event of await chat.chat('s', { message: 'hi' })) events.push(event);
    expect(events).toEqual([{ type: 'delta', text: 'late' }]);
  });
});

describe('sessions.update (item 5)', () => {
  it('takes the call options last: the signal reaches its requests', async () => {
    const { fetch, calls } = scripted(hung);
    const client = createEngramClient({ baseUrl: 'http://engram', fetch });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user abort')), 20);
    const update = client.sessions.update('s', () => ({ data: {} }), {}, { signal: controller.signal });
    expect(await thrown(update)).toMatchObject({ message: 'user abort' });
    expect(calls).toEqual(['GET /v1/working-memory/s']);
  });

  it('still takes a number of attempts there', async () => {
    const conflict = json(412, {
      error: { code: 'precondition_failed', category: 'precondition_failed', message: 'x' },
    });
    const session = json(200, { session_id: 's', messages: [] }, { etag: '"1"' });
    const { fetch, calls } = scripted(session, conflict, session, conflict);
    const client = createEngramClient({ baseUrl: 'http://engram', fetch });
    expect(await thrown(client.sessions.update('s', () => ({ data: {} }), {}, 2))).toMatchObject({
      code: 'precondition_failed',
    });
    expect(calls).toHaveLength(4);
  });
});
