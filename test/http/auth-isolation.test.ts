import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import type { Role } from '../../src/server/auth/principal.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer({ auth: { mode: 'enabled' } });

/** Keys by name: tenant A's agent, inspector and admin; tenant B's agent; two tenants whose ids overlap. */
const keys: Record<string, string> = {};
const credentials: [string, string, Role][] = [
  ['a', 'tenant-a', 'agent'],
  ['aInspector', 'tenant-a', 'inspector'],
  ['aAdmin', 'tenant-a', 'admin'],
  ['b', 'tenant-b', 'agent'],
  ['team', 'team', 'agent'],
  ['teamA', 'team:a', 'agent'],
];

beforeAll(async () => {
  const apiKeys = createApiKeys(testServer().engram.store.documents);
  for (const [name, tenantId, role] of credentials) {
    keys[name] = (await apiKeys.create({ tenantId, role })).key;
  }
});

/** A request as the holder of key `who`. */
function as(
  who: string,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  return testServer().request(path, {
    ...init,
    headers: { authorization: `Bearer ${keys[who]}`, ...init.headers },
  });
}

const message = (content: string) => ({ role: 'user', content, created_at: '2025-01-01T00:00:00Z' });

async function messagesOf(who: string, path: string): Promise<string[]> {
  const response = await as(who, path);
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: { content: string }[] }).messages.map(
    (item) => item.content,
  );
}

describe('tenant isolation', () => {
  beforeAll(async () => {
    for (const [session, namespace] of [
      ['alpha', null],
      ['scoped', 'ns'],
    ] as const) {
      const put = await as('a', `/v1/working-memory/${session}`, {
        method: 'PUT',
        body: { namespace, messages: [message(`secret of ${session}`)], data: { owner: 'a' } },
      });
      expect(put.status).toBe(200);
    }
  });

  it('B lists none of A’s sessions', async () => {
    for (const query of ['', '?namespace=ns', '?limit=100']) {
      const response = await as('b', `/v1/working-memory/${query}`);
      expect(await response.json()).toEqual({ sessions: [], total: 0 });
    }
    const own = await as('a', '/v1/working-memory/');
    expect(((await own.json()) as { total: number }).total).toBe(2);
  });

  it('B cannot read A’s sessions, by exact key or by the AMS id fallback', async () => {
    for (const path of [
      '/v1/working-memory/alpha',
      '/v1/working-memory/scoped',
      '/v1/working-memory/scoped?namespace=ns',
    ]) {
      const response = await as('b', path);
      expect(response.status, path).toBe(404);
    }
  });

  it('B cannot patch A’s session (not found)', async () => {
    const response = await as('b', '/v1/working-memory/alpha', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { data: { owner: 'b' } },
    });
    expect(response.status).toBe(404);
  });

  it('B’s put, append and delete of the same ids touch only B’s own sessions', async () => {
    const put = await as('b', '/v1/working-memory/alpha', {
      method: 'PUT',
      body: { messages: [message('b wrote')] },
    });
    expect(put.status).toBe(200);
    const append = await as('b', '/v1/working-memory/scoped/messages?namespace=ns', {
      method: 'POST',
      body: { messages: [message('b appended')] },
    });
    expect(append.status).toBe(200);
    expect(((await append.json()) as { session: { message_count: number } }).session.message_count).toBe(1);
    for (const path of ['/v1/working-memory/alpha', '/v1/working-memory/scoped?namespace=ns']) {
      expect((await as('b', path, { method: 'DELETE' })).status).toBe(200);
      // Deleting B's copy again reaches nothing of A's.
      expect((await as('b', path, { method: 'DELETE' })).status).toBe(200);
    }
    expect(await messagesOf('a', '/v1/working-memory/alpha')).toEqual(['secret of alpha']);
    expect(await messagesOf('a', '/v1/working-memory/scoped?namespace=ns')).toEqual(['secret of scoped']);
    const alpha = await as('a', '/v1/working-memory/alpha');
    expect(((await alpha.json()) as { data: unknown }).data).toEqual({ owner: 'a' });
  });
});

describe('roles', () => {
  it('an inspector reads but cannot write', async () => {
    expect((await as('aInspector', '/v1/working-memory/')).status).toBe(200);
    expect(await messagesOf('aInspector', '/v1/working-memory/alpha')).toEqual(['secret of alpha']);
    const writes = [
      as('aInspector', '/v1/working-memory/alpha', { method: 'PUT', body: { messages: [] } }),
      as('aInspector', '/v1/working-memory/alpha', { method: 'DELETE' }),
      as('aInspector', '/v1/working-memory/alpha', {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: { data: {} },
      }),
      as('aInspector', '/v1/working-memory/alpha/messages', {
        method: 'POST',
        body: { messages: [message('x')] },
      }),
    ];
    const statuses = await Promise.all(writes.map(async (response) => (await response).status));
    expect(statuses).toEqual([403, 403, 403, 403]);
    expect(await messagesOf('a', '/v1/working-memory/alpha')).toEqual(['secret of alpha']);
  });

  it('only an admin reads /metrics', async () => {
    expect((await as('a', '/metrics')).status).toBe(403);
    expect((await as('aInspector', '/metrics')).status).toBe(403);
    expect((await as('aAdmin', '/metrics')).status).toBe(200);
  });
});

describe('opaque scopes', () => {
  it('no separator makes two namespace/user pairs collide', async () => {
    const pairs = [
      ['a:b', 'c'],
      ['a', 'b:c'],
      ['a/b', 'c'],
      ['a', 'b/c'],
      ['a\u0000b', 'c'],
      ['', 'ab:c'],
    ];
    for (const [namespace, user] of pairs) {
      const response = await as('a', '/v1/working-memory/opaque', {
        method: 'PUT',
        body: { namespace, user_id: user, messages: [message(`${namespace}|${user}`)] },
      });
      expect(response.status).toBe(200);
    }
    for (const [namespace = '', user = ''] of pairs) {
      const query = new URLSearchParams({ namespace, user_id: user });
      expect(await messagesOf('a', `/v1/working-memory/opaque?${query}`)).toEqual([`${namespace}|${user}`]);
    }
    const list = await as('a', '/v1/working-memory/?namespace=a');
    expect(await list.json()).toEqual({ sessions: ['opaque', 'opaque'], total: 2 });
  });

  it('tenant ids are opaque too: tenant "team" namespace "a:b" is not tenant "team:a" namespace "b"', async () => {
    await as('team', '/v1/working-memory/s', {
      method: 'PUT',
      body: { namespace: 'a:b', messages: [message('team')] },
    });
    await as('teamA', '/v1/working-memory/s', {
      method: 'PUT',
      body: { namespace: 'b', messages: [message('team:a')] },
    });
    expect(await messagesOf('team', '/v1/working-memory/s?namespace=a:b')).toEqual(['team']);
    expect(await messagesOf('teamA', '/v1/working-memory/s?namespace=b')).toEqual(['team:a']);
    expect((await as('team', '/v1/working-memory/s?namespace=b')).status).toBe(404);
    expect((await as('teamA', '/v1/working-memory/s?namespace=a:b')).status).toBe(404);
  });
});
