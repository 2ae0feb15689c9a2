import { describe, expect, it } from 'vitest';
import { newMemory } from '../conformance/memory-record-fixtures.js';
import { useExtensionApp } from './extension-app.js';

const extensionApp = useExtensionApp({ defaultSources: false });
const ref = { sessionId: 'chat', namespace: 'shop', userId: 'ada', tenantId: 't1' };
const base = '/v1/working-memory/chat/working-set';
const scope = 'namespace=shop&user_id=ada';

async function seed() {
  const { engram } = extensionApp();
  await engram.sessions.append(ref, [{ role: 'user', content: 'Hi' }]);
  const { inserted } = await engram.memories.create('t1', [
    { text: 'Ada prefers replacements over refunds.', userId: 'ada', namespace: 'shop', salience: 0.9 },
    { text: 'Ada lives in Lisbon.', userId: 'ada', namespace: 'shop', salience: 0.5 },
    { text: 'Bob prefers refunds.', userId: 'bob', namespace: 'shop', salience: 0.9 },
  ]);
  return inserted.map((memory) => memory.id) as [string, string, string];
}

describe('the working set of a session', () => {
  it('ranks the subject’s memories with every score component; pins and removals apply', async () => {
    const { call } = extensionApp();
    const [replacements, lisbon, bobs] = await seed();
    const set = await call('GET', `${base}?${scope}&query=${encodeURIComponent('refunds or replacements')}`);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ session_id: 'chat', user_id: 'ada', pinned: [], removed: [] });
    const ids = set.body.items.map((item: { id: string }) => item.id);
    expect(ids[0]).toBe(replacements);
    expect(ids).not.toContain(bobs);
    expect(set.body.items[0].components).toEqual({
      similarity: expect.any(Number),
      salience: 0.9,
      decay: expect.any(Number),
      decayed_salience: expect.any(Number),
      confidence: expect.any(Number),
      weights: { similarity: 0.6, salience: 0.25, confidence: 0.15 },
    });
    expect(set.body.items[0].memory.text).toContain('replacements');

    const changed = await call('POST', `${base}?${scope}`, {
      body: { pin: [lisbon], remove: [replacements] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ pinned: [lisbon], removed: [replacements] });
    const after = await call('GET', `${base}?${scope}&query=refunds&limit=5`);
    expect(after.body.items[0]).toMatchObject({ id: lisbon, pinned: true });
    expect(after.body.items.map((item: { id: string }) => item.id)).not.toContain(replacements);
    expect(after.body.excluded).toContainEqual({ id: replacements, reason: 'removed_by_user' });

    const undone = await call('POST', `${base}?${scope}`, {
      body: { unpin: [lisbon], restore: [replacements] },
    });
    expect(undone.body).toMatchObject({ pinned: [], removed: [] });
    expect(undone.body.version).toBe(changed.body.version + 1);
  });

  it('returns as many items as the limit asks, past 50, and reading it records no access', async () => {
    const { call, engram } = extensionApp();
    const eve = { sessionId: 'eve-chat', namespace: 'shop', userId: 'eve', tenantId: 't1' };
    await engram.sessions.append(eve, [{ role: 'user', content: 'Hi' }]);
    await engram.memories.create(
      't1',
      Array.from({ length: 77 }, (_, index) => ({
        text: `Eve's order number ${index} of a refund`,
        userId: 'eve',
        namespace: 'shop',
      })),
    );
    const set = await call(
      'GET',
      '/v1/working-memory/eve-chat/working-set?namespace=shop&user_id=eve&query=refund&limit=100',
    );
    expect(set.body.items).toHaveLength(77);
    await engram.memories.flush();
    const { memories } = await engram.memories.list(
      't1',
      { userId: { eq: 'eve' } },
      { limit: 100, offset: 0 },
    );
    expect(memories.every((memory) => memory.accessCount === 0)).toBe(true);
  });

  it('pinning an id merged into another pins the memory it became', async () => {
    const { call, engram } = extensionApp();
    const zoe = { sessionId: 'zoe-chat', namespace: 'shop', userId: 'zoe', tenantId: 't1' };
    await engram.sessions.append(zoe, [{ role: 'user', content: 'Hi' }]);
    await engram.memories.create('t1', [
      { id: 'zoe-old', text: 'Zoe drinks tea', userId: 'zoe', namespace: 'shop' },
    ]);
    await engram.store.memories.supersede(
      't1',
      'zoe-old',
      newMemory('zoe-new', { text: 'Zoe switched to coffee', userId: 'zoe', namespace: 'shop' }),
    );
    const pinned = await call('POST', '/v1/working-memory/zoe-chat/working-set?namespace=shop&user_id=zoe', {
      body: { pin: ['zoe-old'] },
    });
    expect(pinned.status).toBe(200);
    expect(pinned.body.pinned).toEqual(['zoe-new']);
    const set = await call(
      'GET',
      '/v1/working-memory/zoe-chat/working-set?namespace=shop&user_id=zoe&query=weather',
    );
    expect(set.body.items.map((item: { id: string }) => item.id)).toContain('zoe-new');
  });

  it('answers 404 for unknown sessions, other users’ or tenants’ memories, and 400 for bad input', async () => {
    const { call, engram } = extensionApp();
    const bob = (await engram.memories.list('t1', { userId: { eq: 'bob' } })).memories[0]?.id as string;
    expect((await call('GET', `/v1/working-memory/nope/working-set?${scope}&query=x`)).status).toBe(404);
    expect((await call('GET', `${base}?${scope}&query=x`, { caller: { tenant: 't2' } })).status).toBe(404);
    const pinBob = await call('POST', `${base}?${scope}`, { body: { pin: [bob] } });
    expect(pinBob.status).toBe(404);
    expect(pinBob.body.error.code).toBe('not_found');
    const own = (await engram.memories.list('t1', { userId: { eq: 'ada' } })).memories[0]?.id as string;
    expect(
      (await call('POST', `${base}?${scope}`, { body: { pin: [own] }, caller: { tenant: 't2' } })).status,
    ).toBe(404);
    expect(
      (await call('POST', '/v1/working-memory/nope/working-set', { body: { remove: ['m'] } })).status,
    ).toBe(404);

    for (const path of [`${base}?${scope}`, `${base}?${scope}&query=x&limit=0`]) {
      const answer = await call('GET', path);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('validation_failed');
    }
    const invalid = await call('POST', `${base}?${scope}`, { body: { pin: 'one' } });
    expect(invalid.status).toBe(400);
    expect((await call('POST', `${base}?${scope}`, { body: { favourite: [own] } })).status).toBe(400);

    await engram.sessions.append({ sessionId: 'anonymous', tenantId: 't1' }, [
      { role: 'user', content: 'Hi' },
    ]);
    const noUser = await call('GET', '/v1/working-memory/anonymous/working-set?query=x');
    expect(noUser.status).toBe(400);
  });
});
