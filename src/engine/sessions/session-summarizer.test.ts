import { describe, expect, it } from 'vitest';
import { countLoopTurns } from '../../../test/support/loop-turns.js';
import { extractiveSummary } from '../../core/summarization/extractive-summary.js';
import { planSummarization } from '../../core/summarization/plan-summarization.js';
import { MESSAGE_OVERHEAD_TOKENS } from '../../core/tokens/token-counter.js';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createSessionOperations } from './session-operations.js';
import { toSessionKey } from './session-ref.js';
import { createSessionSummarizer, type SummaryWriter } from './session-summarizer.js';
import { SUMMARY_PAGE_MESSAGES } from './summary-pages.js';

const ref = { sessionId: 'trip' };
const turns = Array.from({ length: 10 }, (_, index) => [
  { role: 'user' as const, content: `Question ${index}: tell me about city number ${index} in Portugal.` },
  { role: 'assistant' as const, content: `City ${index} has a castle, a river and famous pastries.` },
]).flat();

async function setup(writer?: SummaryWriter, beforeSummarize?: (throughSeq: number) => void) {
  const store = createMemoryStore();
  const engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: false });
  await engram.sessions.append(ref, turns);
  const summarizer = createSessionSummarizer({
    store,
    sessions: engram.sessions,
    policy: { contextWindow: 400, threshold: 0.5, keepRecent: 0.25 },
    ...(writer ? { writer } : {}),
    ...(beforeSummarize ? { beforeSummarize: async (_ref, throughSeq) => beforeSummarize(throughSeq) } : {}),
  });
  return { engram, summarizer };
}

describe('session summarizer', () => {
  it('skips a session under the threshold', async () => {
    const { engram, summarizer } = await setup();
    await engram.sessions.append({ sessionId: 'short' }, [{ role: 'user', content: 'Hi' }]);
    expect(await summarizer.summarize({ sessionId: 'short' })).toEqual({
      status: 'skipped',
      reason: 'under-threshold',
    });
    expect(await summarizer.summarize({ sessionId: 'absent' })).toEqual({
      status: 'skipped',
      reason: 'absent',
    });
  });

  it('without an LLM folds the oldest messages into an extractive summary and keeps the tail', async () => {
    const leaving: number[] = [];
    const { engram, summarizer } = await setup(undefined, (throughSeq) => leaving.push(throughSeq));
    const outcome = await summarizer.summarize(ref);
    expect(outcome).toMatchObject({ status: 'summarized', writer: 'extractive' });
    const session = await engram.sessions.get(ref);
    expect(session?.context).toContain('City 0 has a castle');
    const throughSeq = outcome.status === 'summarized' ? outcome.throughSeq : 0;
    expect(outcome).toMatchObject({ messages: throughSeq });
    expect(leaving).toEqual([throughSeq]);
    expect(session?.messages[0]?.seq).toBe(throughSeq + 1);
    expect(session?.messages.at(-1)?.content).toContain('City 9');
    expect((await engram.sessions.get(ref, { includeSummarized: true }))?.messages).toHaveLength(20);
  });

  it('uses the LLM answer, merging with the previous summary it is given', async () => {
    const seen: (string | null)[] = [];
    const writer: SummaryWriter = async (previous, messages) => {
      seen.push(previous);
      return `Summary of ${messages.length} messages.`;
    };
    const { engram, summarizer } = await setup(writer);
    await engram.sessions.patch(ref, { context: 'Earlier: the user likes trains.' });
    expect(await summarizer.summarize(ref)).toMatchObject({ status: 'summarized', writer: 'llm' });
    expect(seen).toEqual(['Earlier: the user likes trains.']);
    expect((await engram.sessions.get(ref))?.context).toMatch(/^Summary of \d+ messages\.$/);
  });

  it('never replaces the summary with an empty or "no change" answer', async () => {
    for (const answer of ['', '  ', 'No changes.', 'unchanged']) {
      const { engram, summarizer } = await setup(async () => answer);
      await engram.sessions.patch(ref, { context: '- user: likes trains' });
      expect(await summarizer.summarize(ref)).toMatchObject({ status: 'summarized', writer: 'extractive' });
      const context = (await engram.sessions.get(ref))?.context ?? '';
      expect(context.startsWith('- user: likes trains')).toBe(true);
      expect(context).toContain('City 0');
    }
  });

  it('falls back to the extractive summary of the messages the model was given, without reading them again', async () => {
    const store = createMemoryStore();
    const sessions = createSessionOperations(
      store,
      { encoding: 'o200k_base', count: (text) => text.length },
      () => new Date(),
    );
    await sessions.put(ref, { messages: turns });
    const given: string[] = [];
    const summarizer = createSessionSummarizer({
      store,
      sessions,
      policy: { contextWindow: 400, threshold: 0.5, keepRecent: 0.25 },
      writer: async (_previous, messages) => {
        given.push(...messages.map((message) => message.content));
        return 'No changes.';
      },
    });
    const readMessages = store.readMessages.bind(store);
    const ranges: string[] = [];
    store.readMessages = async (key, query) => {
      ranges.push(`${query.order} ${query.afterSeq ?? ''}-${query.beforeSeq ?? ''}`);
      return readMessages(key, query);
    };
    expect(await summarizer.summarize(ref)).toMatchObject({ status: 'summarized', writer: 'extractive' });
    // The cut's read, then one read of the leaving messages for the model: none after it.
    expect(ranges.filter((range) => range.startsWith('oldest-first'))).toHaveLength(1);
    expect((await sessions.get(ref))?.context).toBe(
      extractiveSummary(
        null,
        given.map((content, index) => ({ role: index % 2 ? 'assistant' : 'user', content })),
      ),
    );
  });

  it('keeps messages appended while the summary was being written', async () => {
    const { engram, summarizer } = await setup(async () => {
      await engram.sessions.append(ref, [{ role: 'user', content: 'A message written meanwhile.' }]);
      return 'Summary.';
    });
    expect(await summarizer.summarize(ref)).toMatchObject({ status: 'summarized' });
    const session = await engram.sessions.get(ref);
    expect(session?.context).toBe('Summary.');
    expect(session?.messages.at(-1)?.content).toBe('A message written meanwhile.');
  });

  it('lands nothing on a session deleted and created again while the model wrote', async () => {
    const { engram, summarizer } = await setup(async () => {
      await engram.sessions.delete(ref);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await engram.sessions.append(ref, [{ role: 'user', content: 'A new conversation.' }]);
      return 'Summary of the deleted conversation.';
    });
    expect(await summarizer.summarize(ref)).toEqual({ status: 'skipped', reason: 'superseded' });
    const session = await engram.sessions.get(ref);
    expect(session?.context).toBeNull();
    expect(session?.messages.map((message) => message.content)).toEqual(['A new conversation.']);
  });

  it('never overwrites a context a caller wrote while the model wrote', async () => {
    const { engram, summarizer } = await setup(async () => {
      await engram.sessions.patch(ref, { context: 'Written by the caller.' });
      return 'Summary.';
    });
    expect(await summarizer.summarize(ref)).toEqual({ status: 'skipped', reason: 'superseded' });
    expect((await engram.sessions.get(ref))?.context).toBe('Written by the caller.');
  });

  it('keeps the session’s expiry as its caller’s last write left it', async () => {
    const { engram, summarizer } = await setup();
    await engram.sessions.patch(ref, { ttlSeconds: 3_600 });
    const before = await engram.store.getSession(toSessionKey(ref));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await summarizer.summarize(ref)).toMatchObject({ status: 'summarized' });
    const after = await engram.store.getSession(toSessionKey(ref));
    expect(after?.context).not.toBeNull();
    expect(after?.expiresAt).toBe(before?.expiresAt);
    expect(after?.updatedAt).toBe(before?.updatedAt);
  });

  it('gives way to a summarizer that recorded first', async () => {
    const { engram, summarizer } = await setup(async () => {
      await engram.sessions.recordSummary(ref, { context: 'Other.', throughSeq: 1, expectedThroughSeq: 0 });
      return 'Mine.';
    });
    expect(await summarizer.summarize(ref)).toEqual({ status: 'skipped', reason: 'superseded' });
    expect((await engram.sessions.get(ref))?.context).toBe('Other.');
  });

  it('summarizes a session of 30,000 messages in slices and pages: other callbacks run, same summary', async () => {
    const store = createMemoryStore();
    // Sessions alone (no engram write path): no background summary races this one.
    const sessions = createSessionOperations(
      store,
      { encoding: 'o200k_base', count: (text) => text.length },
      () => new Date(),
    );
    const messages = Array.from({ length: 30_000 }, (_, index) => ({
      role: index % 2 ? ('assistant' as const) : ('user' as const),
      content: `Fact ${index}: the item numbered ${index} is stored in box ${index % 97}.`,
    }));
    await sessions.put({ sessionId: 'long' }, { messages });
    const key = toSessionKey({ sessionId: 'long' });
    const whole = await store.readMessages(key, { order: 'oldest-first' });
    // Every read the summary makes is one page at most: it never holds the session whole.
    const reads: number[] = [];
    const readMessages = store.readMessages.bind(store);
    store.readMessages = async (readKey, query) => {
      const page = await readMessages(readKey, query);
      reads.push(page.length);
      return page;
    };
    const policy = { contextWindow: 100_000, threshold: 0.5, keepRecent: 0.25 };
    const summarizer = createSessionSummarizer({ store, sessions, policy });
    const turns = countLoopTurns();
    const outcome = await summarizer.summarize({ sessionId: 'long' });
    expect(outcome).toMatchObject({ status: 'summarized', writer: 'extractive' });
    expect(turns.stop()).toBeGreaterThan(2);
    expect(Math.max(...reads)).toBe(SUMMARY_PAGE_MESSAGES);
    // The cut and the summary are those of the whole session read at once.
    const plan = planSummarization(whole, (message) => message.tokenCount + MESSAGE_OVERHEAD_TOKENS, policy);
    expect(outcome).toMatchObject({ throughSeq: plan?.throughSeq, messages: plan?.summarize.length });
    const session = await sessions.get({ sessionId: 'long' });
    expect(session?.context).toBe(extractiveSummary(null, plan?.summarize ?? []));
  });

  it('lets a turn of the event loop pass before it reads the session', async () => {
    const store = createMemoryStore();
    const sessions = createSessionOperations(
      store,
      { encoding: 'o200k_base', count: (text) => text.length },
      () => new Date(),
    );
    await sessions.put(ref, { messages: turns });
    let loopTurns = 0;
    setImmediate(() => loopTurns++);
    const turnsAtRead: number[] = [];
    const getSession = store.getSession.bind(store);
    store.getSession = async (key) => {
      turnsAtRead.push(loopTurns);
      return getSession(key);
    };
    const summarizer = createSessionSummarizer({
      store,
      sessions,
      policy: { contextWindow: 400, threshold: 0.5, keepRecent: 0.25 },
    });
    expect(await summarizer.summarize(ref)).toMatchObject({ status: 'summarized' });
    expect(turnsAtRead[0]).toBe(1);
  });
});
