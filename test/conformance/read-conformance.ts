import { expect, it } from 'vitest';
import { StoreError } from '../../src/core/errors.js';
import type { SessionKey } from '../../src/core/schemas/session.js';
import type { SessionStore } from '../../src/stores/session-store.js';
import {
  type ConformanceContext,
  conversation,
  itemAt,
  message,
  pendingMemory,
  seqs,
  sessionKey,
  sessionWrite,
} from './fixtures.js';

/** Keys that share a session id but must all be different sessions. */
const scopedKeys: SessionKey[] = [
  sessionKey('s', { tenantId: 'tenant-a', namespace: 'a', userId: 'u' }),
  sessionKey('s', { tenantId: 'tenant-b', namespace: 'a', userId: 'u' }),
  sessionKey('s', { namespace: null, userId: 'u' }),
  sessionKey('s', { namespace: '', userId: 'u' }),
  sessionKey('s', { namespace: 'null', userId: 'u' }),
  sessionKey('s', { namespace: 'a', userId: null }),
  sessionKey('s', { namespace: null, userId: null }),
  // Separator-like characters must not let two scopes collide.
  sessionKey('s', { namespace: 'a:b', userId: 'c' }),
  sessionKey('s', { namespace: 'a', userId: 'b:c' }),
  sessionKey('s', { namespace: 'a","b', userId: 'c' }),
  sessionKey('s', { namespace: 'a', userId: 'b","c' }),
  sessionKey('u:s', { namespace: 'a', userId: null }),
];

async function putAll(store: SessionStore, keys: SessionKey[]): Promise<void> {
  for (const [index, key] of keys.entries()) await store.putSession(key, sessionWrite({ data: { index } }));
}

/** Reads, listing, scoping, copies and closing. */
export function describeReadConformance(context: ConformanceContext): void {
  it('returns null and no messages for an absent session', async () => {
    const { store } = context;
    expect(await store.getSession(sessionKey('absent'))).toBeNull();
    expect(await store.readMessages(sessionKey('absent'), { order: 'newest-first', limit: 5 })).toEqual([]);
    expect(await store.listSessions({ tenantId: 'tenant-a', limit: 10, offset: 0 })).toEqual({
      sessions: [],
      total: 0,
    });
  });

  it('reads messages newest-first or oldest-first with limit, beforeSeq and afterSeq', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.appendMessages(
      key,
      Array.from({ length: 10 }, (_, index) => message(`m${index + 1}`)),
    );
    const read = async (query: Parameters<SessionStore['readMessages']>[1]) =>
      seqs(await store.readMessages(key, query));
    expect(await read({ order: 'oldest-first' })).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await read({ order: 'newest-first' })).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(await read({ order: 'newest-first', limit: 3 })).toEqual([10, 9, 8]);
    expect(await read({ order: 'oldest-first', limit: 3 })).toEqual([1, 2, 3]);
    expect(await read({ order: 'newest-first', beforeSeq: 5, limit: 2 })).toEqual([4, 3]);
    expect(await read({ order: 'oldest-first', afterSeq: 7 })).toEqual([8, 9, 10]);
    expect(await read({ order: 'oldest-first', afterSeq: 2, beforeSeq: 6 })).toEqual([3, 4, 5]);
    expect(await read({ order: 'newest-first', afterSeq: 2, beforeSeq: 6, limit: 2 })).toEqual([5, 4]);
    expect(await read({ order: 'oldest-first', afterSeq: 2, beforeSeq: 3 })).toEqual([]);
    expect(await read({ order: 'newest-first', limit: 0 })).toEqual([]);
    expect(await read({ order: 'oldest-first', limit: 50 })).toHaveLength(10);
  });

  it('keeps sessions apart by tenant, namespace and user, null included', async () => {
    const { store } = context;
    await putAll(store, scopedKeys);
    for (const [index, key] of scopedKeys.entries()) {
      expect(await store.getSession(key)).toMatchObject({ ...key, data: { index }, version: 1 });
    }
    const listed = await store.listSessions({ tenantId: 'tenant-a', limit: 100, offset: 0 });
    expect(listed.total).toBe(scopedKeys.length - 1);
    expect(await store.getSession(sessionKey('s', { namespace: 'a:b', userId: null }))).toBeNull();
  });

  it('lists newest updatedAt first, ties broken by namespace, user and session id', async () => {
    const { store, clock } = context;
    await store.putSession(sessionKey('old'), sessionWrite());
    clock.advance(1000);
    const tied = [
      sessionKey('b', { namespace: 'n', userId: 'u' }),
      sessionKey('a', { namespace: 'n', userId: 'u' }),
      sessionKey('z', { namespace: 'n', userId: null }),
      sessionKey('z', { namespace: 'm', userId: 'u' }),
      sessionKey('z', { namespace: null, userId: 'u' }),
    ];
    await putAll(store, tied);
    clock.advance(1000);
    await store.appendMessages(sessionKey('new'), [message('x'), message('y')]);
    const { sessions, total } = await store.listSessions({ tenantId: 'tenant-a', limit: 10, offset: 0 });
    expect(total).toBe(7);
    expect(sessions.map(({ namespace, userId, sessionId }) => [namespace, userId, sessionId])).toEqual([
      ['app', 'user-1', 'new'],
      [null, 'u', 'z'],
      ['m', 'u', 'z'],
      ['n', null, 'z'],
      ['n', 'u', 'a'],
      ['n', 'u', 'b'],
      ['app', 'user-1', 'old'],
    ]);
    expect(sessions[0]).toStrictEqual({ ...sessionKey('new'), updatedAt: clock.iso(), messageCount: 2 });
  });

  it('pages a listing with an exact total', async () => {
    const { store, clock } = context;
    for (let index = 0; index < 5; index += 1) {
      await store.putSession(sessionKey(`s${index}`), sessionWrite());
      clock.advance(10);
    }
    const pages = [];
    for (const offset of [0, 2, 4, 6]) {
      const page = await store.listSessions({ tenantId: 'tenant-a', limit: 2, offset });
      expect(page.total).toBe(5);
      pages.push(...page.sessions.map((summary) => summary.sessionId));
    }
    expect(pages).toEqual(['s4', 's3', 's2', 's1', 's0']);
  });

  it('filters a listing by namespace, user and session id, where null means none', async () => {
    const { store } = context;
    await putAll(store, scopedKeys);
    const list = async (filter: {
      namespace?: string | null;
      userId?: string | null;
      sessionId?: string;
    }) => {
      const { sessions, total } = await store.listSessions({
        tenantId: 'tenant-a',
        limit: 100,
        offset: 0,
        ...filter,
      });
      expect(sessions).toHaveLength(total);
      return sessions.map(({ namespace, userId, sessionId }) => [namespace, userId, sessionId]);
    };
    expect(await list({ namespace: null })).toEqual([
      [null, null, 's'],
      [null, 'u', 's'],
    ]);
    expect(await list({ namespace: 'a' })).toEqual([
      ['a', null, 's'],
      ['a', null, 'u:s'],
      ['a', 'b","c', 's'],
      ['a', 'b:c', 's'],
      ['a', 'u', 's'],
    ]);
    expect(await list({ namespace: 'a', userId: null })).toEqual([
      ['a', null, 's'],
      ['a', null, 'u:s'],
    ]);
    expect(await list({ userId: 'c' })).toEqual([
      ['a","b', 'c', 's'],
      ['a:b', 'c', 's'],
    ]);
    expect(await list({ sessionId: 'u:s' })).toEqual([['a', null, 'u:s']]);
    expect(await list({ namespace: '' })).toEqual([['', 'u', 's']]);
    const otherTenant = await store.listSessions({ tenantId: 'tenant-b', limit: 100, offset: 0 });
    expect(otherTenant.sessions.map((summary) => summary.tenantId)).toEqual(['tenant-b']);
    expect((await store.listSessions({ tenantId: 'tenant-c', limit: 100, offset: 0 })).total).toBe(0);
  });

  it('hands out copies: mutating inputs or results never changes the store', async () => {
    const { store } = context;
    const key = sessionKey();
    const messages = conversation();
    const list = [1];
    const write = sessionWrite({ messages, data: { list }, memories: [pendingMemory('p1')] });
    await store.putSession(key, write);
    // Deep copies taken here, so a driver leaking its internals cannot mutate the expectation too.
    const snapshot = structuredClone(await store.getSession(key));
    const storedMessages = structuredClone(await store.readMessages(key, { order: 'oldest-first' }));

    list.push(2);
    itemAt(messages, 0).content = 'changed';
    Object.assign(itemAt(messages, 2), { seq: 99 });
    itemAt(itemAt(messages, 1).toolCalls ?? [], 0).function.name = 'changed';
    const session = await store.getSession(key);
    if (!session) throw new Error('session missing');
    session.data = { replaced: true };
    itemAt(session.memories, 0).text = 'changed';
    session.longTermMemoryStrategy.config.changed = true;
    const read = await store.readMessages(key, { order: 'oldest-first' });
    itemAt(read, 0).content = 'changed';
    itemAt(itemAt(read, 1).toolCalls ?? [], 0).function.arguments = 'changed';
    const appended = await store.appendMessages(key, [message('late')]);
    itemAt(appended.messages, 0).content = 'changed';
    appended.session.data = null;
    const listed = await store.listSessions({ tenantId: key.tenantId, limit: 1, offset: 0 });
    itemAt(listed.sessions, 0).messageCount = 99;

    expect(await store.getSession(key)).toStrictEqual({
      ...snapshot,
      version: 2,
      messageCount: 4,
      tokenCount: 9,
      lastSeq: 4,
    });
    expect(await store.readMessages(key, { order: 'oldest-first', limit: 3 })).toStrictEqual(storedMessages);
    expect((await store.readMessages(key, { order: 'newest-first', limit: 1 }))[0]?.content).toBe(
      'content of late',
    );
  });

  it('rejects every call with StoreError once closed', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.appendMessages(key, [message('a')]);
    await store.close();
    const calls: (() => Promise<unknown>)[] = [
      () => store.getSession(key),
      () => store.readMessages(key, { order: 'newest-first' }),
      () => store.putSession(key, sessionWrite()),
      () => store.appendMessages(key, [message('b')]),
      () => store.patchSession(key, { context: 'x' }),
      () => store.deleteSession(key),
      () => store.listSessions({ tenantId: key.tenantId, limit: 1, offset: 0 }),
      () => store.deleteExpired(),
    ];
    for (const call of calls) {
      let result: Promise<unknown> | undefined;
      expect(() => {
        result = call();
      }).not.toThrow();
      await expect(result).rejects.toBeInstanceOf(StoreError);
    }
  });
}
