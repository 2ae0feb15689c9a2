import { expect, it } from 'vitest';
import { type ConformanceContext, message, sessionKey, sessionWrite } from './fixtures.js';

/** `sessionRevision`: the cache validator of a session's state. */
export function describeRevisionConformance(context: ConformanceContext): void {
  it('is null for an absent session and stable while nothing is written', async () => {
    const { store } = context;
    const key = sessionKey();
    expect(await store.sessionRevision(key)).toBeNull();
    await store.putSession(key, sessionWrite({ messages: [message('a')] }));
    const revision = await store.sessionRevision(key);
    expect(typeof revision).toBe('string');
    await store.getSession(key);
    await store.readMessages(key, { order: 'oldest-first' });
    await store.listSessions({ tenantId: key.tenantId, limit: 10, offset: 0 });
    expect(await store.sessionRevision(key)).toBe(revision);
    expect(await store.sessionRevision(sessionKey('other'))).toBeNull();
  });

  it('changes with every kind of write and never repeats, even when a session is re-created', async () => {
    const { store } = context;
    const key = sessionKey();
    // The clock never moves here, so neither time nor version can tell these states apart.
    const seen: string[] = [];
    const record = async () => {
      const revision = await store.sessionRevision(key);
      if (revision === null) throw new Error('Expected a live session');
      expect(seen).not.toContain(revision);
      seen.push(revision);
    };
    await store.putSession(key, sessionWrite({ messages: [message('a')] }));
    await record();
    await store.appendMessages(key, [message('b')]);
    await record();
    await store.patchSession(key, { dataPatch: { x: 1 } });
    await record();
    await store.patchSession(key, { summary: { context: 'sum', throughSeq: 1, expectedThroughSeq: 0 } });
    await record();
    await store.putSession(key, sessionWrite({ messages: [message('c')] }));
    await record();
    for (let round = 0; round < 3; round++) {
      expect(await store.deleteSession(key)).toBe(true);
      expect(await store.sessionRevision(key)).toBeNull();
      const again = await store.putSession(key, sessionWrite({ messages: [message('a')] }));
      expect(again.version).toBe(1);
      await record();
    }
    await store.deleteSession(key);
    await store.appendMessages(key, [message('a')]);
    await record();
  });

  it('is null once the session expires', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    await store.putSession(key, sessionWrite({ ttlSeconds: 60 }));
    clock.advance(59_000);
    expect(await store.sessionRevision(key)).not.toBeNull();
    clock.advance(1_000);
    expect(await store.sessionRevision(key)).toBeNull();
  });
}
