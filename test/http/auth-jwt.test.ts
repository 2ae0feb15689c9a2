import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from './test-server.js';

/** A local identity provider: an ES256 key pair whose public half a local HTTP server publishes. */
const issuer = 'https://issuer.test';
const audience = 'engram-api';
const provider = {
  url: '',
  fetches: 0,
  server: undefined as Server | undefined,
  keys: undefined as Awaited<ReturnType<typeof generateKeyPair>> | undefined,
  stranger: undefined as Awaited<ReturnType<typeof generateKeyPair>> | undefined,
};

beforeAll(async () => {
  provider.keys = await generateKeyPair('ES256');
  provider.stranger = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(provider.keys.publicKey)), kid: 'main', alg: 'ES256', use: 'sig' };
  provider.server = createHttpServer((_request, response) => {
    provider.fetches += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => provider.server?.listen(0, '127.0.0.1', resolve));
  provider.url = `http://127.0.0.1:${(provider.server.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(() => new Promise((resolve) => provider.server?.close(resolve)));

const testServer = useTestServer(() => ({
  auth: { mode: 'enabled', jwt: { jwksUrl: provider.url, issuer, audience, algorithms: ['ES256'] } },
}));

/** Signs a token with sensible claims; `claims` and `options` override them. */
async function sign(
  claims: JWTPayload = {},
  options: { key?: 'stranger'; expiresIn?: string | number; kid?: string } = {},
) {
  const keys = options.key === 'stranger' ? provider.stranger : provider.keys;
  return new SignJWT({
    tenant_id: 'acme',
    role: 'agent',
    iss: issuer,
    aud: audience,
    sub: 'user-1',
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? 'main' })
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(keys?.privateKey as Parameters<SignJWT['sign']>[0]);
}

const get = async (path: string, token: string) =>
  testServer().request(path, { headers: { authorization: `Bearer ${token}` } });

async function expectUnauthorized(response: Response, detail: string | RegExp) {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer');
  expect(((await response.json()) as { detail: string }).detail).toMatch(detail);
}

describe('JWT bearer tokens', () => {
  it('accepts a valid token, scopes it to its tenant claim, and fetches the JWKS once', async () => {
    const token = await sign();
    const put = await testServer().request('/v1/working-memory/jwt-session', {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
      body: { messages: [{ role: 'user', content: 'hello', created_at: '2025-01-01T00:00:00Z' }] },
    });
    expect(put.status).toBe(200);
    const list = await get('/v1/working-memory/', await sign());
    expect(await list.json()).toEqual({ sessions: ['jwt-session'], total: 1 });
    const otherTenant = await get('/v1/working-memory/', await sign({ tenant_id: 'globex' }));
    expect(await otherTenant.json()).toEqual({ sessions: [], total: 0 });
    expect(provider.fetches).toBe(1);
  });

  it('maps the role claim: one role, or the most powerful of an array; none is refused', async () => {
    expect((await get('/metrics', await sign({ role: 'admin' }))).status).toBe(200);
    expect((await get('/metrics', await sign({ role: ['inspector', 'admin'] }))).status).toBe(200);
    expect((await get('/metrics', await sign({ role: 'agent' }))).status).toBe(403);
    await expectUnauthorized(
      await get('/metrics', await sign({ role: 'root' })),
      /^Invalid JWT: claim "role"/,
    );
    await expectUnauthorized(
      await get('/metrics', await sign({ role: undefined })),
      /^Invalid JWT: claim "role"/,
    );
  });

  it('refuses a token without a usable tenant claim', async () => {
    for (const tenant_id of [undefined, '', 42]) {
      await expectUnauthorized(
        await get('/v1/working-memory/', await sign({ tenant_id })),
        /^Invalid JWT: claim "tenant_id"/,
      );
    }
  });

  it('answers expiry, audience, issuer and signature failures with AMS’s messages', async () => {
    const expired = await sign({}, { expiresIn: Math.floor(Date.now() / 1000) - 120 });
    await expectUnauthorized(await get('/v1/working-memory/', expired), 'Token has expired');
    await expectUnauthorized(
      await get('/v1/working-memory/', await sign({ aud: 'someone-else' })),
      `Invalid audience. Expected: ${audience}`,
    );
    await expectUnauthorized(
      await get('/v1/working-memory/', await sign({ iss: 'https://evil.test' })),
      /^Invalid JWT: .*iss/,
    );
    await expectUnauthorized(
      await get('/v1/working-memory/', await sign({}, { key: 'stranger' })),
      /^Invalid JWT: signature verification failed/,
    );
    await expectUnauthorized(
      await get('/v1/working-memory/', await sign({}, { kid: 'unknown' })),
      /^Invalid JWT: /,
    );
  });

  it('refuses algorithms outside the allowed list and unsigned tokens', async () => {
    const hmac = await new SignJWT({ tenant_id: 'acme', role: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a'.repeat(32)));
    await expectUnauthorized(await get('/metrics', hmac), /^Invalid JWT: /);
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${encode({ alg: 'none' })}.${encode({ tenant_id: 'acme', role: 'admin', iss: issuer, aud: audience, exp: 9e9 })}.`;
    await expectUnauthorized(await get('/metrics', unsigned), /^Invalid JWT: /);
  });

  it('refuses a token without an expiry', async () => {
    const keys = provider.keys;
    const eternal = await new SignJWT({ tenant_id: 'acme', role: 'agent' })
      .setProtectedHeader({ alg: 'ES256', kid: 'main' })
      .setIssuer(issuer)
      .setAudience(audience)
      .sign(keys?.privateKey as Parameters<SignJWT['sign']>[0]);
    await expectUnauthorized(await get('/v1/working-memory/', eternal), /^Invalid JWT: .*exp/);
  });

  it('still treats non-JWT tokens as API keys', async () => {
    await expectUnauthorized(await get('/v1/working-memory/', 'engram_nothing'), 'Invalid token');
  });
});
