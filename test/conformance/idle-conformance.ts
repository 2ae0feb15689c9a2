import { expect, it } from 'vitest';
import type { IdleSession } from '../../src/stores/session-store.js';
import { type ConformanceContext, message, sessionKey, sessionWrite } from './fixtures.js';

const MINUTE = 60_000;

/** listIdleSessions: the cross-tenant listing behind the inactivity sweep. */
export function describeIdleConformance(context: ConformanceContext): void {
  it('lists live sessions of every tenant updated in the range, oldest first', async () => {
    const { store, clock } = context;
    const start = clock.iso();
    await store.putSession(sessionKey('a'), sessionWrite({ messages: [message('m1')] }));
    clock.advance(MINUTE);
    await store.appendMessages(sessionKey('b', { tenantId: 'tenant-b', namespace: null, userId: null }), [
      message('m1'),
      message('m2'),
    ]);
    clock.advance(MINUTE);
    await store.putSession(sessionKey('expiring'), sessionWrite({ ttlSeconds: 90 }));
    clock.advance(MINUTE);
    await store.putSession(sessionKey('recent'), sessionWrite());
    clock.advance(MINUTE);

    const { sessions, cursor } = await store.listIdleSessions({
      updatedBefore: clock.iso(-MINUTE),
      limit: 10,
    });
    expect(cursor).toBeNull();
    expect(sessions).toEqual([
      { ...sessionKey('a'), createdAt: start, updatedAt: start, lastSeq: 1 },
      {
        ...sessionKey('b', { tenantId: 'tenant-b', namespace: null, userId: null }),
        createdAt: new Date(Date.parse(start) + MINUTE).toISOString(),
        updatedAt: new Date(Date.parse(start) + MINUTE).toISOString(),
        lastSeq: 2,
      },
    ]);
    const later = await store.listIdleSessions({
      updatedFrom: new Date(Date.parse(start) + MINUTE).toISOString(),
      updatedBefore: clock.iso(),
      limit: 10,
    });
    expect(later.sessions.map((session) => session.sessionId)).toEqual(['b', 'recent']);
  });

  it('pages through sessions that share an updatedAt without loss or repeats', async () => {
    const { store, clock } = context;
    const ids = Array.from({ length: 7 }, (_, index) => `s${index}`);
    for (const id of ids) await store.putSession(sessionKey(id), sessionWrite());
    clock.advance(MINUTE);
    const seen: IdleSession[] = [];
    let after: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await store.listIdleSessions({
        updatedBefore: clock.iso(),
        limit: 3,
        ...(after ? { after } : {}),
      });
      seen.push(...result.sessions);
      if (result.cursor === null) break;
      after = result.cursor;
    }
    expect(seen.map((session) => session.sessionId).sort()).toEqual(ids);
    expect(await store.listIdleSessions({ updatedBefore: clock.iso(), limit: 0 })).toEqual({
      sessions: [],
      cursor: null,
    });
  });

  it('lists one tenant only when given one', async () => {
    const { store, clock } = context;
    await store.putSession(sessionKey('a'), sessionWrite());
    await store.putSession(sessionKey('b', { tenantId: 'tenant-b' }), sessionWrite());
    clock.advance(MINUTE);
    const { sessions } = await store.listIdleSessions({
      tenantId: 'tenant-b',
      updatedBefore: clock.iso(),
      limit: 5,
    });
    expect(sessions.map((session) => [session.tenantId, session.sessionId])).toEqual([['tenant-b', 'b']]);
  });

  it('drops a session from the range once it is written again', async () => {
    const { store, clock } = context;
    await store.putSession(sessionKey('a'), sessionWrite());
    clock.advance(MINUTE);
    const cutoff = clock.iso();
    expect((await store.listIdleSessions({ updatedBefore: cutoff, limit: 5 })).sessions).toHaveLength(1);
    await store.appendMessages(sessionKey('a'), [message('late')]);
    expect((await store.listIdleSessions({ updatedBefore: cutoff, limit: 5 })).sessions).toEqual([]);
  });
}
