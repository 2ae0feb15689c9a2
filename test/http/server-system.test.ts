import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EngramError } from '../../src/core/errors.js';
import { createEngram, type Engram } from '../../src/engram.js';
import { LlmError } from '../../src/providers/llm/llm-error.js';
import { createServer } from '../../src/server/create-server.js';
import { createMemoryStore } from '../../src/stores/memory/memory-store.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer();

/** A server over an engram whose parts can be replaced, with its JSON log lines captured. */
async function startWith(change: (engram: Engram) => Engram, shutdownTimeoutMs = 10_000) {
  const real = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0, defaultSources: false });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const server = createServer({
    engram: change(real),
    config: { port: 0, shutdownTimeoutMs },
    logger: pino({ level: 'info' }, sink),
  });
  const { url } = await server.listen();
  return { server, url, logs };
}

describe('system routes', () => {
  it('GET /v1/health answers integer milliseconds', async () => {
    const response = await testServer().request('/v1/health');
    const body = (await response.json()) as { now: number };
    expect(response.status).toBe(200);
    expect(Number.isInteger(body.now)).toBe(true);
  });

  it('echoes a plain x-request-id and replaces an unsafe one', async () => {
    const { request } = testServer();
    const given = await request('/v1/health', { headers: { 'x-request-id': 'trace-42' } });
    expect(given.headers.get('x-request-id')).toBe('trace-42');
    const unsafe = await request('/v1/health', { headers: { 'x-request-id': 'a b' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('GET /ready is 200 when the store answers', async () => {
    const response = await testServer().request('/ready');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready' });
  });

  it('GET /metrics exposes request latency per route template and status', async () => {
    const { request } = testServer();
    await request('/v1/working-memory/metrics-probe');
    const text = await (await request('/metrics')).text();
    expect(text).toContain('# TYPE engram_http_request_duration_seconds histogram');
    expect(text).toMatch(
      /engram_http_request_duration_seconds_count\{method="GET",route="\/v1\/working-memory\/:session_id",status="404"\} \d+/,
    );
  });

  it('unknown routes are 404 and known paths with a wrong method 405 with Allow', async () => {
    const { request } = testServer();
    const unknown = await request('/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Not Found' });
    const wrong = await request('/v1/working-memory/', { method: 'POST', body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    expect(await wrong.json()).toEqual({ detail: 'Method Not Allowed' });
    const health = await request('/v1/health', { method: 'DELETE' });
    expect(health.status).toBe(405);
  });

  it('a malformed percent-encoding is a 400 detail', async () => {
    const response = await testServer().request('/v1/working-memory/%E0%A4%A');
    expect(response.status).toBe(400);
    expect(typeof ((await response.json()) as { detail: unknown }).detail).toBe('string');
  });
});

describe('refused URLs', () => {
  it('a path parameter over the router limit is a 400 that quotes the URL cut, not whole', async () => {
    const response = await testServer().request(`/v1/long-term-memory/${'Z'.repeat(5_000)}`);
    expect(response.status).toBe(400);
    const { detail } = (await response.json()) as { detail: string };
    expect(detail).toMatch(/… \(5021 characters\)' is exceeding the max param length$/);
    expect(detail.length).toBeLessThan(400);
  });
});

describe('failures', () => {
  it('an unexpected error is a JSON 500 in the route shape, and is logged with the request id', async () => {
    const { server, url, logs } = await startWith((engram) => ({
      ...engram,
      sessions: {
        ...engram.sessions,
        list: () => Promise.reject(new Error('boom')),
        append: () => Promise.reject(new Error('boom')),
      },
    }));
    const ams = await fetch(`${url}/v1/working-memory/`, { headers: { 'x-request-id': 'failing-1' } });
    expect(ams.status).toBe(500);
    expect(await ams.json()).toEqual({ detail: 'Internal Server Error' });
    const extension = await fetch(`${url}/v1/working-memory/s/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(extension.status).toBe(500);
    expect(await extension.json()).toEqual({
      error: { code: 'internal', category: 'internal', message: 'Internal Server Error' },
    });
    await server.close();
    const failure = logs.find((line) => line.msg === 'request failed' && line.reqId === 'failing-1');
    expect(failure).toMatchObject({ level: 50, err: { message: 'boom' } });
    expect(logs.some((line) => line.msg === 'request' && line.status === 500 && line.route)).toBe(true);
  });

  it('logs an error content-free: its code, message and numbers, never the texts of its details', async () => {
    // A provider's error body can echo the prompt: the system prompt, memories, the user's message.
    const echoed = new LlmError('llm_unavailable', 'Chat completion request failed with HTTP 500', {
      details: { status: 500, body: '{"error": "rejected: my password is ZEBRA-SECRET-4711"}' },
      cause: new EngramError('upstream', 'unavailable', 'upstream failed', {
        details: { input: 'ZEBRA-SECRET-4711' },
      }),
    });
    const { server, url, logs } = await startWith((engram) => ({
      ...engram,
      sessions: { ...engram.sessions, list: () => Promise.reject(echoed) },
    }));
    const response = await fetch(`${url}/v1/working-memory/`, { headers: { 'x-request-id': 'echo-1' } });
    expect(response.status).toBe(503);
    await server.close();
    const failure = logs.find((line) => line.msg === 'request failed' && line.reqId === 'echo-1');
    expect(failure).toMatchObject({
      err: { type: 'LlmError', code: 'llm_unavailable', message: echoed.message, details: { status: 500 } },
    });
    expect(JSON.stringify(logs)).not.toContain('ZEBRA-SECRET-4711');
  });

  it('logs the request URL without a query parameter’s words, and bounded', async () => {
    const { server, url, logs } = await startWith((engram) => engram);
    await fetch(`${url}/v1/working-memory/s1/working-set?user_id=u1&query=my%20password%20ZEBRA-SECRET-4711`);
    await fetch(`${url}/v1/nothing/${'Z'.repeat(5_000)}`);
    await server.close();
    const urls = logs.filter((line) => line.msg === 'request').map((line) => String(line.url));
    expect(urls).toContain('/v1/working-memory/s1/working-set?user_id=u1&query=…');
    expect(urls.every((logged) => !logged.includes('ZEBRA') && logged.length < 1_100)).toBe(true);
  });

  it('GET /ready is 503 when the store fails', async () => {
    const { server, url } = await startWith((engram) => ({
      ...engram,
      store: { ...engram.store, getSession: () => Promise.reject(new Error('disk gone')) },
    }));
    const response = await fetch(`${url}/ready`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ status: 'unavailable' });
    await server.close();
  });
});

describe('graceful shutdown', () => {
  it('drains an in-flight request, refuses new ones, then closes engram', async () => {
    let release = () => {};
    let entered = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let engramClosed = false;
    const { server, url } = await startWith((engram) => ({
      ...engram,
      sessions: {
        ...engram.sessions,
        list: async (query) => {
          entered();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          return engram.sessions.list(query);
        },
      },
      close: async () => {
        engramClosed = true;
        await engram.close();
      },
    }));
    const inFlight = fetch(`${url}/v1/working-memory/`);
    await inside;
    const closing = server.close();
    const late = await fetch(`${url}/v1/health`).then(
      (response) => response.status,
      () => 'refused',
    );
    expect(late).not.toBe(200);
    expect(engramClosed).toBe(false);
    release();
    const drained = await inFlight;
    expect(drained.status).toBe(200);
    expect(await drained.json()).toEqual({ sessions: [], total: 0 });
    await closing;
    expect(engramClosed).toBe(true);
  });

  it('cuts requests still running after shutdownTimeoutMs', async () => {
    let entered = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const { server, url } = await startWith(
      (engram) => ({
        ...engram,
        sessions: {
          ...engram.sessions,
          list: () => {
            entered();
            return new Promise(() => {});
          },
        },
      }),
      10,
    );
    const stuck = fetch(`${url}/v1/working-memory/`).then(
      () => 'answered',
      () => 'cut',
    );
    await inside;
    await server.close();
    expect(await stuck).toBe('cut');
  });
});
