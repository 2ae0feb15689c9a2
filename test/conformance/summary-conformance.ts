import { expect, it } from 'vitest';
import { ValidationError, VersionConflictError } from '../../src/core/errors.js';
import { type ConformanceContext, message, rejectionOf, sessionKey, sessionWrite } from './fixtures.js';

/** The summary mark: a compare-and-set on what the summary covers, independent of `version`. */
export function describeSummaryConformance(context: ConformanceContext): void {
  it('moves the mark, counts what it covers, sets context and keeps the messages in the log', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.appendMessages(key, [message('a'), message('b'), message('c')]);
    const session = await store.patchSession(key, {
      summary: { context: 'a and b happened', throughSeq: 2, expectedThroughSeq: 0 },
    });
    expect(session).toMatchObject({
      context: 'a and b happened',
      version: 2,
      summarized: { throughSeq: 2, messages: 2, tokens: 4 },
      messageCount: 3,
      tokenCount: 6,
    });
    expect(await store.getSession(key)).toMatchObject({ summarized: { throughSeq: 2, messages: 2 } });
    expect((await store.readMessages(key, { order: 'oldest-first' })).map((stored) => stored.id)).toEqual([
      'a',
      'b',
      'c',
    ]);
    const next = await store.patchSession(key, {
      summary: { context: 'all three', throughSeq: 3, expectedThroughSeq: 2 },
    });
    expect(next.summarized).toEqual({ throughSeq: 3, messages: 3, tokens: 6 });
  });

  it('does not conflict with appends made meanwhile, but with another summary', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.appendMessages(key, [message('a'), message('b')]);
    await store.appendMessages(key, [message('c')]);
    const summary = { context: 'a', throughSeq: 1, expectedThroughSeq: 0 };
    await store.patchSession(key, { summary });
    const stale = await rejectionOf(store.patchSession(key, { summary: { ...summary, context: 'late' } }));
    expect(stale).toBeInstanceOf(VersionConflictError);
    expect(await store.getSession(key)).toMatchObject({ context: 'a', summarized: { throughSeq: 1 } });
  });

  it('a summary begun before the session was created again, or its context replaced, does not land', async () => {
    const { store, clock } = context;
    const key = sessionKey();
    await store.appendMessages(key, [message('a'), message('b')]);
    const begun = await store.getSession(key);
    if (!begun) throw new Error('session missing');
    const summary = {
      context: 'a happened',
      throughSeq: 1,
      expectedThroughSeq: 0,
      expectedContext: begun.context,
      expectedCreatedAt: begun.createdAt,
    };
    // Deleted and created again: seqs start over, so the mark alone cannot tell the two apart.
    await store.deleteSession(key);
    clock.advance(1);
    await store.appendMessages(key, [message('new-a'), message('new-b')]);
    expect(await rejectionOf(store.patchSession(key, { summary }))).toBeInstanceOf(VersionConflictError);
    const again = await store.getSession(key);
    expect(again).toMatchObject({ context: null, summarized: { throughSeq: 0 } });
    // A caller's own context written meanwhile is not overwritten by the summary.
    const fresh = {
      ...summary,
      expectedContext: again?.context ?? null,
      expectedCreatedAt: again?.createdAt,
    };
    await store.patchSession(key, { context: 'set by the caller' });
    expect(await rejectionOf(store.patchSession(key, { summary: fresh }))).toBeInstanceOf(
      VersionConflictError,
    );
    expect(await store.getSession(key)).toMatchObject({
      context: 'set by the caller',
      summarized: { throughSeq: 0 },
    });
    const current = await store.patchSession(key, {
      summary: { ...fresh, expectedContext: 'set by the caller' },
    });
    expect(current).toMatchObject({ context: 'a happened', summarized: { throughSeq: 1 } });
  });

  it('rejects a range that is empty or beyond the last seq, changing nothing', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.appendMessages(key, [message('a'), message('b')]);
    for (const throughSeq of [0, 3]) {
      const error = await rejectionOf(
        store.patchSession(key, { summary: { context: 'x', throughSeq, expectedThroughSeq: 0 } }),
      );
      expect(error).toBeInstanceOf(ValidationError);
    }
    expect(await store.getSession(key)).toMatchObject({
      version: 1,
      context: null,
      summarized: { throughSeq: 0 },
    });
  });

  it('a full put starts the new messages unsummarized after the old ones', async () => {
    const { store } = context;
    const key = sessionKey();
    await store.appendMessages(key, [message('a'), message('b')]);
    await store.patchSession(key, { summary: { context: 'a', throughSeq: 1, expectedThroughSeq: 0 } });
    const replaced = await store.putSession(
      key,
      sessionWrite({ messages: [message('b2'), message('c')], context: 'client summary' }),
    );
    expect(replaced).toMatchObject({
      context: 'client summary',
      lastSeq: 4,
      summarized: { throughSeq: 2, messages: 0, tokens: 0 },
    });
  });
}
