import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { useTestServer } from './test-server.js';

/** What the request log wrote, one parsed JSON line per record. */
const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});
const testServer = useTestServer({}, pino({ level: 'info' }, sink));

describe('per-request hooks', () => {
  it('count and log hijacked replies (MCP) like any other', async () => {
    const { request } = testServer();
    const answer = await request('/mcp', {
      method: 'POST',
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(answer.status).toBe(200);
    await answer.text();
    const metrics = await (await request('/metrics')).text();
    expect(metrics).toMatch(
      /engram_http_request_duration_seconds_count\{method="POST",route="\/mcp",status="200"\} 1/,
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'request', route: '/mcp', status: 200, tenant: 'default' }),
    );
  });
});

describe('the request log line and latency metric', () => {
  const lineFor = (url: string) => lines.find((line) => line.msg === 'request' && line.url === url);

  it('name the route template, status, time, tenant and subject of an answered request', async () => {
    const { request } = testServer();
    expect((await request('/v1/working-memory/log-line-session')).status).toBe(404);
    const line = lineFor('/v1/working-memory/log-line-session');
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: expect.any(Number),
      hostname: expect.any(String),
      reqId: expect.any(String),
      method: 'GET',
      url: '/v1/working-memory/log-line-session',
      route: '/v1/working-memory/:session_id',
      status: 404,
      ms: expect.any(Number),
      tenant: 'default',
      subject: 'anonymous',
      msg: 'request',
    });
  });

  it('count and log unknown paths as unmatched, without a caller', async () => {
    const { request } = testServer();
    expect((await request('/no/such/path')).status).toBe(404);
    expect(lineFor('/no/such/path')).toMatchObject({ route: 'unmatched', status: 404 });
    expect(lineFor('/no/such/path')).not.toHaveProperty('tenant');
    const metrics = await (await request('/metrics')).text();
    expect(metrics).toMatch(
      /engram_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1/,
    );
  });

  it('count and log a path Fastify refuses before routing it (bad percent-encoding)', async () => {
    const { request } = testServer();
    expect((await request('/v1/working-memory/%zz')).status).toBe(400);
    expect(lineFor('/v1/working-memory/%zz')).toMatchObject({ route: 'unmatched', status: 400 });
    const metrics = await (await request('/metrics')).text();
    expect(metrics).toMatch(
      /engram_http_request_duration_seconds_count\{method="GET",route="unmatched",status="400"\} 1/,
    );
  });
});
