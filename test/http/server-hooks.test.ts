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
