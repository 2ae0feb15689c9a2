import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUi } from '../../scripts/build-ui.js';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import { createEngram } from '../../src/engram.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { createMemoryStore } from '../../src/stores/memory/memory-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const temporaryDirectory = useTemporaryDirectories('engram-ui-serving-');
const servers: EngramServer[] = [];

async function start(options: { uiDirectory: string; auth?: boolean }) {
  const engram = await createEngram({
    store: createMemoryStore(),
    sweepIntervalMs: 0,
    defaultSources: false,
  });
  const server = createServer({
    engram,
    uiDirectory: options.uiDirectory,
    config: { port: 0, logLevel: 'silent', auth: { mode: options.auth ? 'enabled' : 'disabled' } },
  });
  servers.push(server);
  const { url } = await server.listen();
  return { url, engram };
}
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('/ui', () => {
  let url = '';
  beforeAll(async () => {
    const uiDirectory = join(temporaryDirectory(), 'ui');
    await buildUi(uiDirectory);
    ({ url } = await start({ uiDirectory, auth: true }));
  }, 30_000);

  it('serves the page without a credential, same-origin only, compressed, with an ETag', async () => {
    const page = await fetch(`${url}/ui`, { headers: { 'accept-encoding': 'identity' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/ui/app.js">');
    const script = await fetch(`${url}/ui/app.js`, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-encoding')).toBe('br');
    // fetch decodes br itself; the raw size shows it was compressed.
    expect(Number(script.headers.get('content-length'))).toBeLessThan(
      (
        await fetch(`${url}/ui/app.js`, { headers: { 'accept-encoding': 'identity' } }).then((r) =>
          r.arrayBuffer(),
        )
      ).byteLength,
    );
    const etag = script.headers.get('etag') ?? '';
    const again = await fetch(`${url}/ui/app.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('answers 404 for files it does not have', async () => {
    expect((await fetch(`${url}/ui/nope.js`)).status).toBe(404);
    expect((await fetch(`${url}/ui/../package.json`)).status).toBe(404);
  });
});

describe('/ui before a build', () => {
  it('answers 503 saying how to build it', async () => {
    const empty = join(temporaryDirectory(), 'empty');
    mkdirSync(empty);
    const { url } = await start({ uiDirectory: empty });
    const answer = await fetch(`${url}/ui/`);
    expect(answer.status).toBe(503);
    expect(await answer.text()).toContain('npm run build:ui');
  });
});

describe('GET /v1/whoami', () => {
  it('says the anonymous admin of tenant default while authentication is off', async () => {
    const { url } = await start({ uiDirectory: temporaryDirectory() });
    expect(await (await fetch(`${url}/v1/whoami`)).json()).toEqual({
      tenant_id: 'default',
      role: 'admin',
      subject: 'anonymous',
      permissions: ['read', 'write', 'admin', 'inspect'],
      authentication: false,
    });
  });

  it('names the key’s tenant, role and permissions; 401 without a key', async () => {
    const { url, engram } = await start({ uiDirectory: temporaryDirectory(), auth: true });
    const { key, apiKey } = await createApiKeys(engram.store.documents).create({
      tenantId: 'acme',
      role: 'inspector',
    });
    expect((await fetch(`${url}/v1/whoami`)).status).toBe(401);
    const answer = await fetch(`${url}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } });
    expect(await answer.json()).toEqual({
      tenant_id: 'acme',
      role: 'inspector',
      subject: `key:${apiKey.id}`,
      permissions: ['read', 'inspect'],
      authentication: true,
    });
  });
});
