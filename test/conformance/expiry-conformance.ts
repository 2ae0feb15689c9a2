import { expect, it } from 'vitest';
import { NotFoundError } from '../../src/core/errors.js';
import { type ConformanceContext, ids, message, sessionKey, sessionWrite } from './fixtures.js';

const SECOND = 1000;

/** TTL: expired sessions are absent, writes refresh expiry, sweeping, and fresh starts. */
export function describeExpiryConformance(context: ConformanceContext): void {
  it('makes a session absent for reads once expiresAt is reached', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    const written = await store.putSession(key, sessionWrite({ messages: [message('a')], ttlSeconds: 60 }));
    expect(written.expiresAt).toBe(clock.iso(60 * SECOND));
    clock.advance(59 * SECOND);
    expect(await store.getSession(key)).not.toBeNull();
    clock.advance(SECOND);
    expect(await store.getSession(key)).toBeNull();
    expect(await store.readMessages(key, { order: 'newest-first' })).toEqual([]);
    expect(await store.listSessions({ tenantId: key.tenantId, limit: 10, offset: 0 })).toEqual({
      sessions: [],
      total: 0,
    });
    await expect(store.patchSession(key, { context: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.deleteSession(key)).toBe(false);
  });

  it('refreshes expiry on every write', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    await store.putSession(key, sessionWrite({ ttlSeconds: 60 }));
    clock.advance(50 * SECOND);
    const appended = await store.appendMessages(key, [message('a')]);
    expect(appended.session.expiresAt).toBe(clock.iso(60 * SECOND));
    clock.advance(50 * SECOND);
    const patched = await store.patchSession(key, { context: 'still here' });
    expect(patched.expiresAt).toBe(clock.iso(60 * SECOND));
    clock.advance(50 * SECOND);
    const replaced = await store.putSession(key, sessionWrite({ ttlSeconds: 60, context: 'again' }));
    expect(replaced).toMatchObject({ version: 4, expiresAt: clock.iso(60 * SECOND) });
    clock.advance(59 * SECOND);
    expect(await store.getSession(key)).toMatchObject({ version: 4, context: 'again' });
  });

  it("an engram write (keepExpiry) keeps the caller's expiry and updatedAt, unless it sets a ttl", async () => {
    const { store, clock } = context;
    const key = sessionKey();
    const written = await store.appendMessages(key, [message('a'), message('b')], { ttlSeconds: 60 });
    clock.advance(50 * SECOND);
    const summarized = await store.patchSession(key, {
      summary: { context: 'a', throughSeq: 1, expectedThroughSeq: 0 },
      keepExpiry: true,
    });
    expect(summarized).toMatchObject({
      context: 'a',
      version: written.session.version + 1,
      updatedAt: written.session.updatedAt,
      expiresAt: written.session.expiresAt,
    });
    clock.advance(10 * SECOND);
    expect(await store.getSession(key)).toBeNull();
    // A ttl written with it is a caller's decision: it counts from now.
    const again = await store.appendMessages(key, [message('c')], { ttlSeconds: 60 });
    clock.advance(30 * SECOND);
    const retimed = await store.patchSession(key, { ttlSeconds: 120, keepExpiry: true });
    expect(retimed.expiresAt).toBe(clock.iso(120 * SECOND));
    expect(retimed.updatedAt).not.toBe(again.session.updatedAt);
  });

  it('never expires a session without a ttl', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    await store.putSession(key, sessionWrite({ ttlSeconds: null }));
    clock.advance(10 * 365 * 24 * 3600 * SECOND);
    expect(await store.getSession(key)).toMatchObject({ expiresAt: null, version: 1 });
    expect(await store.deleteExpired()).toBe(0);
  });

  it('deleteExpired removes exactly the expired sessions and counts them', async () => {
    const { store, clock } = context;
    for (const sessionId of ['e1', 'e2', 'e3']) {
      await store.appendMessages(sessionKey(sessionId), [message('a')], { ttlSeconds: 10 });
    }
    await store.putSession(sessionKey('forever'), sessionWrite());
    await store.putSession(sessionKey('later'), sessionWrite({ ttlSeconds: 1000 }));
    clock.advance(11 * SECOND);
    expect(await store.deleteExpired()).toBe(3);
    expect(await store.deleteExpired()).toBe(0);
    const { sessions } = await store.listSessions({ tenantId: 'tenant-a', limit: 10, offset: 0 });
    expect(sessions.map((summary) => summary.sessionId)).toEqual(['forever', 'later']);
    // Back before expiry: a session that was only hidden, not removed, would reappear.
    clock.advance(-11 * SECOND);
    expect(await store.getSession(sessionKey('e1'))).toBeNull();
  });

  it('starts a fresh session when writing to an expired one', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    await store.putSession(
      key,
      sessionWrite({ messages: [message('a'), message('b')], data: { old: true }, ttlSeconds: 10 }),
    );
    await store.patchSession(key, { context: 'old' });
    clock.advance(11 * SECOND);
    const { session, messages } = await store.appendMessages(key, [message('a')], { expectedVersion: 0 });
    expect(session).toMatchObject({
      version: 1,
      data: null,
      context: null,
      ttlSeconds: null,
      messageCount: 1,
      tokenCount: 2,
      createdAt: clock.iso(),
    });
    expect(ids(messages)).toEqual(['a']);
    expect(ids(await store.readMessages(key, { order: 'oldest-first' }))).toEqual(['a']);

    const other = sessionKey('other');
    await store.appendMessages(other, [message('x')], { ttlSeconds: 5 });
    clock.advance(5 * SECOND);
    const replaced = await store.putSession(other, sessionWrite({ messages: [message('y')] }), {
      expectedVersion: 0,
    });
    expect(replaced).toMatchObject({ version: 1, createdAt: clock.iso(), messageCount: 1 });
    expect(ids(await store.readMessages(other, { order: 'oldest-first' }))).toEqual(['y']);
  });
}
