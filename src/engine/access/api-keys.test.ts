import { describe, expect, it, vi } from 'vitest';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { API_KEY_COLLECTION, createApiKeys, SYSTEM_TENANT } from './api-keys.js';

/** A settable clock. */
function manualClock(start = Date.parse('2025-06-01T00:00:00Z')) {
  let now = start;
  return {
    clock: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('api keys', () => {
  it('creates a key that verifies, stores only its hash, and keeps it under the system tenant', async () => {
    const store = createMemoryStore();
    const keys = createApiKeys(store.documents);
    const { key, apiKey } = await keys.create({ tenantId: 'acme', role: 'agent', name: 'bot' });
    expect(key).toMatch(/^engram_[0-9A-Z]{26}_[\w-]{43}$/);
    expect(key).toContain(apiKey.id);
    expect(apiKey).toMatchObject({ tenantId: 'acme', role: 'agent', name: 'bot', expiresAt: null });
    const stored = await store.documents.getDocument(SYSTEM_TENANT, API_KEY_COLLECTION, apiKey.id);
    expect(JSON.stringify(stored?.value)).not.toContain(key.slice(34));
    expect(await store.documents.getDocument('acme', API_KEY_COLLECTION, apiKey.id)).toBeNull();
    expect(await keys.verify(key)).toMatchObject({ ok: true, apiKey: { id: apiKey.id, tenantId: 'acme' } });
  });

  it('refuses malformed, unknown and altered keys, without listing the collection', async () => {
    const store = createMemoryStore();
    const listDocuments = vi.spyOn(store.documents, 'listDocuments');
    const keys = createApiKeys(store.documents);
    const { key } = await keys.create({ tenantId: 'acme', role: 'admin' });
    const altered = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    const unknownId = `engram_01ARZ3NDEKTSV4RRFFQ69G5FAV_${key.slice(-43)}`;
    for (const candidate of ['', 'engram', 'nonsense', `${key}x`, altered, unknownId]) {
      expect(await keys.verify(candidate), candidate).toEqual({ ok: false, reason: 'invalid' });
    }
    expect(listDocuments).not.toHaveBeenCalled();
  });

  it('honours expiry and revocation; revoking is idempotent and unknown ids are not found', async () => {
    const time = manualClock();
    const keys = createApiKeys(createMemoryStore().documents, { clock: time.clock });
    const { key, apiKey } = await keys.create({ tenantId: 'acme', role: 'agent', expiresInDays: 2 });
    expect(apiKey.expiresAt).toBe('2025-06-03T00:00:00.000Z');
    time.advance(2 * 86_400_000 - 1);
    expect((await keys.verify(key)).ok).toBe(true);
    time.advance(1);
    expect(await keys.verify(key)).toEqual({ ok: false, reason: 'expired' });

    const other = await keys.create({ tenantId: 'acme', role: 'agent' });
    const revoked = await keys.revoke(other.apiKey.id);
    expect(revoked.revokedAt).toBe(time.clock().toISOString());
    time.advance(1_000);
    expect((await keys.revoke(other.apiKey.id)).revokedAt).toBe(revoked.revokedAt);
    expect(await keys.verify(other.key)).toEqual({ ok: false, reason: 'invalid' });
    await expect(keys.revoke('01ARZ3NDEKTSV4RRFFQ69G5FAV')).rejects.toBeInstanceOf(NotFoundError);
    // An id of any length (a CLI argument) is quoted cut, never whole.
    const long = await keys.revoke('k'.repeat(100_000)).catch((error: Error) => error);
    expect(long).toBeInstanceOf(NotFoundError);
    expect((long as Error).message.length).toBeLessThan(400);
  });

  it('records the last use at most once per interval', async () => {
    const time = manualClock();
    const store = createMemoryStore();
    const put = vi.spyOn(store.documents, 'putDocument');
    const keys = createApiKeys(store.documents, { clock: time.clock, lastUsedIntervalMs: 60_000 });
    const { key, apiKey } = await keys.create({ tenantId: 'acme', role: 'agent' });
    for (let call = 0; call < 5; call += 1) await keys.verify(key);
    expect(put).toHaveBeenCalledTimes(2); // create + first use
    time.advance(60_000);
    await keys.verify(key);
    expect(put).toHaveBeenCalledTimes(3);
    const [listed] = await keys.list();
    expect(listed).toMatchObject({ id: apiKey.id, lastUsedAt: time.clock().toISOString() });
  });

  it('a revocation is never undone by a concurrent last-use write', async () => {
    const keys = createApiKeys(createMemoryStore().documents, { lastUsedIntervalMs: 0 });
    const { key, apiKey } = await keys.create({ tenantId: 'acme', role: 'agent' });
    await Promise.all([keys.verify(key), keys.revoke(apiKey.id), keys.verify(key)]);
    expect(await keys.verify(key)).toEqual({ ok: false, reason: 'invalid' });
    expect((await keys.list())[0]?.revokedAt).not.toBeNull();
  });

  it('lists every key or one tenant’s, oldest first, across pages', async () => {
    const keys = createApiKeys(createMemoryStore().documents);
    const created: string[] = [];
    for (let index = 0; index < 503; index += 1) {
      created.push((await keys.create({ tenantId: index % 2 === 0 ? 'a' : 'b', role: 'agent' })).apiKey.id);
    }
    const all = await keys.list();
    expect(all.map((apiKey) => apiKey.id)).toEqual(created);
    expect((await keys.list({ tenantId: 'b' })).length).toBe(251);
    expect(JSON.stringify(all)).not.toContain('hash');
  });

  it('validates what it creates', async () => {
    const keys = createApiKeys(createMemoryStore().documents);
    for (const input of [
      { tenantId: '', role: 'agent' },
      { tenantId: 'acme', role: 'root' },
      { tenantId: 'acme', role: 'agent', expiresInDays: 0 },
      { tenantId: 'acme', role: 'agent', name: '   ' },
    ]) {
      await expect(keys.create(input as never), JSON.stringify(input)).rejects.toBeInstanceOf(
        ValidationError,
      );
    }
  });
});
