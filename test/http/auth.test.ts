import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer({ auth: { mode: 'enabled' } });
const keys: Record<'agent' | 'expired' | 'revoked', string> = { agent: '', expired: '', revoked: '' };

beforeAll(async () => {
  const apiKeys = createApiKeys(testServer().engram.store.documents);
  keys.agent = (await apiKeys.create({ tenantId: 'acme', role: 'agent' })).key;
  const revoked = await apiKeys.create({ tenantId: 'acme', role: 'agent' });
  await apiKeys.revoke(revoked.apiKey.id);
  keys.revoked = revoked.key;
  // Created three days ago with a one-day lifetime.
  const past = createApiKeys(testServer().engram.store.documents, {
    clock: () => new Date(Date.now() - 3 * 86_400_000),
  });
  keys.expired = (await past.create({ tenantId: 'acme', role: 'agent', expiresInDays: 1 })).key;
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Asserts a 401 with AMS's body and the challenge header. */
async function expectUnauthorized(response: Response, detail: string) {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer');
  expect(await response.json()).toEqual({ detail });
}

describe('API key authentication', () => {
  it('keeps /v1/health open', async () => {
    const response = await testServer().request('/v1/health');
    expect(response.status).toBe(200);
  });

  it('answers 401 Missing authorization header without a usable credential', async () => {
    const { request } = testServer();
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer   ' },
      { 'x-api-key': '' },
    ];
    for (const headers of cases) {
      await expectUnauthorized(
        await request('/v1/working-memory/', { headers }),
        'Missing authorization header',
      );
    }
  });

  it('accepts a key as a bearer token (any scheme case) or as X-API-Key', async () => {
    const { request } = testServer();
    const cases: Record<string, string>[] = [
      bearer(keys.agent),
      { authorization: `bearer ${keys.agent}` },
      { 'x-api-key': keys.agent },
      { authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': keys.agent },
    ];
    for (const headers of cases) {
      const response = await request('/v1/working-memory/', { headers });
      expect(response.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('refuses unknown, altered and revoked keys as Invalid token, expired ones as Token has expired', async () => {
    const { request } = testServer();
    const altered = `${keys.agent.slice(0, -2)}${keys.agent.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const token of ['nonsense', altered, keys.revoked, 'a.b.c']) {
      await expectUnauthorized(
        await request('/v1/working-memory/', { headers: bearer(token) }),
        'Invalid token',
      );
    }
    await expectUnauthorized(
      await request('/v1/working-memory/', { headers: { 'x-api-key': keys.expired } }),
      'Token has expired',
    );
  });

  it('answers auth failures on extension routes in engram’s error shape, still with the challenge', async () => {
    const response = await testServer().request('/v1/working-memory/s1/messages', {
      method: 'POST',
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await response.json()).toEqual({
      error: {
        code: 'missing_credentials',
        category: 'unauthorized',
        message: 'Missing authorization header',
      },
    });
    const expired = await testServer().request('/v1/working-memory/s1', {
      method: 'PATCH',
      headers: { ...bearer(keys.expired) },
      body: { data: { a: 1 } },
    });
    expect(await expired.json()).toMatchObject({
      error: { code: 'token_expired', message: 'Token has expired' },
    });
  });

  it('answers 403 in the AMS shape when the role lacks the permission, with no challenge', async () => {
    const response = await testServer().request('/metrics', { headers: bearer(keys.agent) });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(await response.json()).toEqual({ detail: 'The agent role does not grant admin access' });
  });

  it('answers unknown paths 404 and wrong methods 405 whether or not a credential is given', async () => {
    const { request } = testServer();
    expect((await request('/v1/nowhere')).status).toBe(404);
    expect((await request('/v1/health', { method: 'POST' })).status).toBe(405);
  });

  it('records when a key was last used', async () => {
    const [listed] = await createApiKeys(testServer().engram.store.documents).list({ tenantId: 'acme' });
    expect(listed?.lastUsedAt).not.toBeNull();
  });
});
