import { expect, it } from 'vitest';
import { NotFoundError, ValidationError, VersionConflictError } from '../../src/core/errors.js';
import {
  type ConformanceContext,
  conversation,
  ids,
  message,
  pendingMemory,
  rejectionOf,
  seqs,
  sessionKey,
  sessionWrite,
} from './fixtures.js';

/** Versions, optimistic concurrency, put/append/patch/delete semantics. */
export function describeWriteConformance(context: ConformanceContext): void {
  it('starts a session at version 1 and adds one per put, append and patch', async () => {
    const { store } = context;
    const key = sessionKey();
    expect((await store.putSession(key, sessionWrite())).version).toBe(1);
    expect((await store.appendMessages(key, [message('a')])).session.version).toBe(2);
    expect((await store.patchSession(key, { context: 'x' })).version).toBe(3);
    expect((await store.putSession(key, sessionWrite())).version).toBe(4);
    expect((await store.getSession(key))?.version).toBe(4);
  });

  it('round-trips every field of a put', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    const messages = conversation();
    const written = await store.putSession(
      key,
      sessionWrite({
        messages,
        memories: [pendingMemory('p1'), pendingMemory('p2')],
        data: { plan: { steps: ['a', 'b'], done: false }, count: 3 },
        context: 'summary so far',
        ttlSeconds: 3600,
        longTermMemoryStrategy: { strategy: 'summary', config: { maxTokens: 100 } },
        createdAt: '2025-06-01T12:00:00.000+02:00',
      }),
    );
    const expected = {
      ...key,
      data: { plan: { steps: ['a', 'b'], done: false }, count: 3 },
      context: 'summary so far',
      memories: [pendingMemory('p1'), pendingMemory('p2')],
      longTermMemoryStrategy: { strategy: 'summary', config: { maxTokens: 100 } },
      workingSet: { pinned: [], removed: [] },
      ttlSeconds: 3600,
      version: 1,
      createdAt: '2025-06-01T10:00:00.000Z',
      updatedAt: clock.iso(),
      expiresAt: clock.iso(3_600_000),
      messageCount: 3,
      tokenCount: 4,
      lastSeq: 3,
      summarized: { throughSeq: 0, messages: 0, tokens: 0 },
    };
    expect(written).toStrictEqual(expected);
    expect(await store.getSession(key)).toStrictEqual(expected);
    const stored = await store.readMessages(key, { order: 'oldest-first' });
    expect(stored).toStrictEqual(messages.map((item, index) => ({ ...item, seq: index + 1 })));
  });

  it('patches the working-set curation, and a full put keeps it', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.putSession(key, sessionWrite({ messages: [message('a')] }));
    const workingSet = { pinned: ['m1', 'm2'], removed: ['m3'] };
    const patched = await store.patchSession(key, { workingSet });
    expect(patched).toMatchObject({ workingSet, version: 2 });
    const replaced = await store.putSession(key, sessionWrite({ messages: [message('b')], context: 'new' }));
    expect(replaced.workingSet).toStrictEqual(workingSet);
    expect((await store.getSession(key))?.workingSet).toStrictEqual(workingSet);
    await store.patchSession(key, { context: 'only context' });
    expect((await store.getSession(key))?.workingSet).toStrictEqual(workingSet);
  });

  it('put replaces the messages, never reuses a seq, and keeps createdAt unless given', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    await store.putSession(key, sessionWrite({ messages: [message('a'), message('b')] }));
    const createdAt = clock.iso();
    clock.advance(1000);
    const replaced = await store.putSession(key, sessionWrite({ messages: [message('c')] }));
    const stored = await store.readMessages(key, { order: 'oldest-first' });
    expect(ids(stored)).toEqual(['c']);
    expect(stored[0]?.seq).toBeGreaterThan(2);
    expect(replaced).toMatchObject({ createdAt, updatedAt: clock.iso(), messageCount: 1, tokenCount: 2 });
    expect(replaced.lastSeq).toBe(stored[0]?.seq);
    const recreated = await store.putSession(key, sessionWrite({ createdAt: '2020-01-01T00:00:00.000Z' }));
    expect(recreated.createdAt).toBe('2020-01-01T00:00:00.000Z');
    expect(await store.readMessages(key, { order: 'oldest-first' })).toEqual([]);
  });

  it('a put that sends the end of the log again keeps those messages and seqs (an AMS GET then PUT)', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    clock.advance(123);
    await store.appendMessages(key, [message('a'), message('b'), message('c')]);
    const before = await store.getSession(key);
    expect(before?.createdAt).not.toMatch(/\.000Z$/);
    await store.patchSession(key, { summary: { context: 'a', throughSeq: 1, expectedThroughSeq: 0 } });
    clock.advance(1000);
    // The client read b and c (after the summary), adds d, and sends the times back in whole
    // seconds, as AMS answers them; the session's creation time too.
    const resent = await store.putSession(
      key,
      sessionWrite({
        messages: [message('b', { createdAt: '2026-01-01T00:00:00Z' }), message('c'), message('d')],
        context: 'a',
        createdAt: `${before?.createdAt.slice(0, 19)}Z`,
      }),
    );
    const stored = await store.readMessages(key, { order: 'oldest-first' });
    expect(stored.map((entry) => [entry.id, entry.seq])).toEqual([
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ]);
    expect(resent).toMatchObject({
      lastSeq: 4,
      messageCount: 3,
      tokenCount: 6,
      context: 'a',
      createdAt: before?.createdAt,
      summarized: { throughSeq: 1, messages: 0, tokens: 0 },
    });
    // A changed message, a gap or a reordering is a real replace: new seqs after the highest.
    const changed = await store.putSession(
      key,
      sessionWrite({ messages: [message('c', { content: 'edited' }), message('d')] }),
    );
    expect(changed.lastSeq).toBe(6);
    expect((await store.readMessages(key, { order: 'oldest-first' })).map((entry) => entry.seq)).toEqual([
      5, 6,
    ]);
    const dropped = await store.putSession(
      key,
      sessionWrite({ messages: [message('c', { content: 'edited' })] }),
    );
    expect(dropped.lastSeq).toBe(7);
    expect((await store.readMessages(key, { order: 'oldest-first' })).map((entry) => entry.content)).toEqual([
      'edited',
    ]);
  });

  it('append creates an absent session with defaults and the given ttl', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    const result = await store.appendMessages(key, [message('a'), message('bb')], { ttlSeconds: 120 });
    expect(result.session).toStrictEqual({
      ...key,
      data: null,
      context: null,
      memories: [],
      longTermMemoryStrategy: { strategy: 'discrete', config: {} },
      workingSet: { pinned: [], removed: [] },
      ttlSeconds: 120,
      version: 1,
      createdAt: clock.iso(),
      updatedAt: clock.iso(),
      expiresAt: clock.iso(120_000),
      messageCount: 2,
      tokenCount: 5,
      lastSeq: 2,
      summarized: { throughSeq: 0, messages: 0, tokens: 0 },
    });
    expect(result.messages).toStrictEqual([
      { ...message('a'), seq: 1 },
      { ...message('bb'), seq: 2 },
    ]);
    const withoutTtl = await store.appendMessages(sessionKey('other'), [message('x')]);
    expect(withoutTtl.session).toMatchObject({ ttlSeconds: null, expiresAt: null });
  });

  it('append keeps an existing session ttl and its other fields', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.putSession(key, sessionWrite({ ttlSeconds: 60, data: { k: 1 }, context: 'c' }));
    const { session } = await store.appendMessages(key, [message('a')], { ttlSeconds: 999 });
    expect(session).toMatchObject({ ttlSeconds: 60, data: { k: 1 }, context: 'c' });
  });

  it('preserves order across appends with strictly increasing seqs', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.appendMessages(key, [message('a'), message('b')]);
    const third = await store.appendMessages(key, [message('c')]);
    expect(seqs(third.messages)).toEqual([3]);
    const { session } = await store.appendMessages(key, [message('d'), message('e')]);
    const stored = await store.readMessages(key, { order: 'oldest-first' });
    expect(ids(stored)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(seqs(stored)).toEqual([1, 2, 3, 4, 5]);
    expect(session).toMatchObject({ messageCount: 5, tokenCount: 10, lastSeq: 5, version: 3 });
  });

  it('lands each of many concurrent appends exactly once, contiguous and in order', async () => {
    const { store } = context;
    const key = sessionKey();
    const batches = Array.from({ length: 50 }, (_, call) =>
      Array.from({ length: (call % 3) + 1 }, (_, index) => message(`c${call}-m${index}`)),
    );
    const results = await Promise.all(batches.map((batch) => store.appendMessages(key, batch)));
    const stored = await store.readMessages(key, { order: 'oldest-first' });
    const all = batches.flat();
    expect(new Set(ids(stored))).toEqual(new Set(ids(all)));
    expect(stored).toHaveLength(all.length);
    for (let index = 1; index < stored.length; index += 1) {
      expect(stored[index]?.seq).toBeGreaterThan(stored[index - 1]?.seq ?? Number.POSITIVE_INFINITY);
    }
    batches.forEach((batch, call) => {
      const start = stored.findIndex((item) => item.id === batch[0]?.id);
      expect(ids(stored.slice(start, start + batch.length))).toEqual(ids(batch));
      expect(seqs(results[call]?.messages ?? [])).toEqual(seqs(stored.slice(start, start + batch.length)));
    });
    const session = await store.getSession(key);
    const tokens = all.reduce((sum, item) => sum + item.tokenCount, 0);
    expect(session).toMatchObject({ version: 50, messageCount: all.length, tokenCount: tokens });
    expect(session?.lastSeq).toBe(stored.at(-1)?.seq);
  });

  it('rejects a stale expectedVersion on every write and changes nothing', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.putSession(key, sessionWrite({ messages: [message('a')], data: { k: 1 } }));
    const conflicts = [
      await rejectionOf(store.appendMessages(key, [message('b')], { expectedVersion: 5 })),
      await rejectionOf(store.putSession(key, sessionWrite(), { expectedVersion: 2 })),
      await rejectionOf(store.patchSession(key, { dataPatch: { k: 2 } }, { expectedVersion: 0 })),
    ];
    for (const conflict of conflicts) {
      expect(conflict).toBeInstanceOf(VersionConflictError);
      expect((conflict as VersionConflictError).details).toMatchObject({ actual: 1 });
    }
    expect(await store.getSession(key)).toMatchObject({ version: 1, data: { k: 1 }, messageCount: 1 });
    expect(ids(await store.readMessages(key, { order: 'oldest-first' }))).toEqual(['a']);
    const { session } = await store.appendMessages(key, [message('b')], { expectedVersion: 1 });
    expect(session.version).toBe(2);
  });

  it('treats expectedVersion 0 as create-only', async () => {
    const { store } = context;
    const key = sessionKey();
    expect((await store.putSession(key, sessionWrite(), { expectedVersion: 0 })).version).toBe(1);
    const again = await rejectionOf(store.putSession(key, sessionWrite(), { expectedVersion: 0 }));
    expect(again).toBeInstanceOf(VersionConflictError);
    expect((again as VersionConflictError).details).toEqual({ expected: 0, actual: 1 });
    await expect(store.appendMessages(key, [message('a')], { expectedVersion: 0 })).rejects.toBeInstanceOf(
      VersionConflictError,
    );
    const fresh = sessionKey('fresh');
    const created = await store.appendMessages(fresh, [message('a')], { expectedVersion: 0 });
    expect(created.session.version).toBe(1);
    const missing = await rejectionOf(
      store.putSession(sessionKey('missing'), sessionWrite(), { expectedVersion: 3 }),
    );
    expect((missing as VersionConflictError).details).toEqual({ expected: 3, actual: null });
    expect(await store.getSession(sessionKey('missing'))).toBeNull();
  });

  it('rejects duplicate message ids with a ValidationError and writes nothing', async () => {
    const { store } = context;
    const key = sessionKey();
    const withinAppend = await rejectionOf(store.appendMessages(key, [message('a'), message('a')]));
    expect(withinAppend).toBeInstanceOf(ValidationError);
    expect((withinAppend as ValidationError).code).toBe('validation_failed');
    expect(await store.getSession(key)).toBeNull();
    await expect(
      store.putSession(key, sessionWrite({ messages: [message('x'), message('x')] })),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(await store.getSession(key)).toBeNull();

    await store.appendMessages(key, [message('a')]);
    const againstStored = await rejectionOf(store.appendMessages(key, [message('b'), message('a')]));
    expect(againstStored).toBeInstanceOf(ValidationError);
    expect(await store.getSession(key)).toMatchObject({
      version: 1,
      messageCount: 1,
      tokenCount: 2,
      lastSeq: 1,
    });
    expect(ids(await store.readMessages(key, { order: 'oldest-first' }))).toEqual(['a']);
    const next = await store.appendMessages(key, [message('b')]);
    expect(seqs(next.messages)).toEqual([2]);
  });

  it('patches data as a merge patch, sets the given fields, and needs the session', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    await expect(store.patchSession(key, { context: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.getSession(key)).toBeNull();
    await store.putSession(key, sessionWrite({ messages: [message('a')], context: 'kept', ttlSeconds: 60 }));
    const merged = await store.patchSession(key, { dataPatch: { a: { b: 1, keep: true }, c: 2 } });
    expect(merged).toMatchObject({
      data: { a: { b: 1, keep: true }, c: 2 },
      context: 'kept',
      ttlSeconds: 60,
    });
    const removed = await store.patchSession(key, { dataPatch: { a: { b: null, d: [1, 2] }, c: null } });
    expect(removed.data).toStrictEqual({ a: { keep: true, d: [1, 2] } });
    clock.advance(5000);
    const fields = await store.patchSession(key, {
      context: null,
      memories: [pendingMemory('p1')],
      ttlSeconds: 600,
    });
    expect(fields).toMatchObject({
      context: null,
      memories: [pendingMemory('p1')],
      ttlSeconds: 600,
      expiresAt: clock.iso(600_000),
      updatedAt: clock.iso(),
      data: { a: { keep: true, d: [1, 2] } },
      messageCount: 1,
      version: 4,
    });
    expect(ids(await store.readMessages(key, { order: 'oldest-first' }))).toEqual(['a']);
    expect((await store.patchSession(key, { ttlSeconds: null })).expiresAt).toBeNull();
  });

  it('refuses a data patch that would grow data past MAX_DATA_BYTES, and changes nothing', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.putSession(key, sessionWrite({ messages: [message('a')] }));
    const half = 'x'.repeat(600_000);
    const first = await store.patchSession(key, { dataPatch: { a: half } });
    const error = await rejectionOf(store.patchSession(key, { dataPatch: { b: half } }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/limited to 1048576 bytes \(MAX_DATA_BYTES\)/);
    const after = await store.getSession(key);
    expect(after?.version).toBe(first.version);
    expect(Object.keys(after?.data ?? {})).toEqual(['a']);
  });

  it('deletes a session with its messages, resolving true then false', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.appendMessages(key, [message('a'), message('b')]);
    expect(await store.deleteSession(key)).toBe(true);
    expect(await store.deleteSession(key)).toBe(false);
    expect(await store.getSession(key)).toBeNull();
    expect(await store.readMessages(key, { order: 'newest-first' })).toEqual([]);
    const { session } = await store.appendMessages(key, [message('a')]);
    expect(session).toMatchObject({ version: 1, messageCount: 1 });
    expect(await store.deleteSession(sessionKey('never'))).toBe(false);
  });
}
