import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import { resolveServerConfig } from '../../src/server/server-config.js';
import { useTestServer } from './test-server.js';

/** One request with exactly these headers (fetch would not let a test set `Host`). */
function send(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const url = new URL(path, base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: url.pathname + url.search,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('auth off: only loopback Host and Origin values (DNS rebinding)', () => {
  const testServer = useTestServer({ allowedHosts: ['memory.lan', 'proxy.lan:8443'] });
  const port = () => new URL(testServer().url).port;

  it.each([
    ['GET', '/v1/working-memory/'],
    ['GET', '/v1/health'],
    ['POST', '/v1/long-term-memory/search', { text: 'x' }],
    ['POST', '/mcp', initialize],
  ] as [string, string, unknown?][])(
    'Host: attacker.example is refused on %s %s',
    async (method, path, body) => {
      for (const host of ['attacker.example', `attacker.example:${port()}`, '127.0.0.1.attacker.example']) {
        const answer = await send(testServer().url, method, path, { host }, body);
        expect(answer.status, `${host}: ${answer.body}`).toBe(403);
        expect(answer.body).toMatch(/host_not_allowed|is not allowed while authentication is off/);
      }
    },
  );

  it.each([
    ['GET', '/v1/working-memory/'],
    ['POST', '/mcp', initialize],
  ] as [string, string, unknown?][])(
    'a foreign or null Origin is refused on %s %s',
    async (method, path, body) => {
      for (const origin of ['https://attacker.example', `http://attacker.example:${port()}`, 'null']) {
        const answer = await send(
          testServer().url,
          method,
          path,
          { host: `127.0.0.1:${port()}`, origin },
          body,
        );
        expect(answer.status, origin).toBe(403);
      }
    },
  );

  it('loopback names with any port, and allow-listed names, are served (REST and MCP)', async () => {
    for (const host of [
      'localhost',
      `localhost:${port()}`,
      `127.0.0.1:${port()}`,
      `[::1]:${port()}`,
      'memory.lan',
    ]) {
      expect((await send(testServer().url, 'GET', '/v1/working-memory/', { host })).status, host).toBe(200);
      const mcp = await send(testServer().url, 'POST', '/mcp', { host }, initialize);
      expect(mcp.status, `${host}: ${mcp.body}`).toBe(200);
    }
    for (const origin of [`http://localhost:${port()}`, 'http://[::1]', 'https://memory.lan']) {
      const answer = await send(testServer().url, 'GET', '/v1/working-memory/', {
        host: `localhost:${port()}`,
        origin,
      });
      expect(answer.status, origin).toBe(200);
    }
  });

  it("/mcp also runs the MCP SDK's own check, which compares whole Host values", async () => {
    // The server's guard is port-agnostic: proxy.lan on another port passes it on REST…
    expect(
      (await send(testServer().url, 'GET', '/v1/working-memory/', { host: 'proxy.lan:9999' })).status,
    ).toBe(200);
    // …but the SDK's DNS-rebinding protection on /mcp knows only proxy.lan:8443 (as written), bare and this port.
    const refused = await send(testServer().url, 'POST', '/mcp', { host: 'proxy.lan:9999' }, initialize);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/Invalid Host header/);
    expect(
      (await send(testServer().url, 'POST', '/mcp', { host: 'proxy.lan:8443' }, initialize)).status,
    ).toBe(200);
  });
});

describe('auth on: credentials protect the server, any Host is served', () => {
  const testServer = useTestServer({ auth: { mode: 'enabled' } });
  let key = '';
  beforeAll(async () => {
    key = (
      await createApiKeys(testServer().engram.store.documents).create({ tenantId: 'acme', role: 'agent' })
    ).key;
  });

  it('Host: attacker.example with a valid key is answered', async () => {
    const headers = { host: 'memory.example.com', authorization: `Bearer ${key}` };
    expect((await send(testServer().url, 'GET', '/v1/working-memory/', headers)).status).toBe(200);
    expect(
      (await send(testServer().url, 'GET', '/v1/working-memory/', { host: 'attacker.example' })).status,
    ).toBe(401);
  });
});

describe('allowedHosts setting', () => {
  it('comes from the file, ENGRAM_ALLOWED_HOSTS (comma-separated) or --allowed-hosts, flags first', () => {
    const file = () => JSON.stringify({ allowedHosts: ['from-file.lan'] });
    expect(resolveServerConfig({ config: 'c.json' }, {}, file).allowedHosts).toEqual(['from-file.lan']);
    expect(
      resolveServerConfig({ config: 'c.json' }, { ENGRAM_ALLOWED_HOSTS: 'a.lan, b.lan:8443' }, file)
        .allowedHosts,
    ).toEqual(['a.lan', 'b.lan:8443']);
    expect(
      resolveServerConfig({ 'allowed-hosts': 'c.lan' }, { ENGRAM_ALLOWED_HOSTS: 'a.lan' }).allowedHosts,
    ).toEqual(['c.lan']);
    expect(resolveServerConfig({}, {}).allowedHosts).toEqual([]);
    expect(() => resolveServerConfig({}, { ENGRAM_ALLOWED_HOSTS: 'bad host/path' })).toThrow(/allowedHosts/);
  });
});
