import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../core/schemas/message.js';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createSessionSummarizer, type SummaryWriter } from './session-summarizer.js';

const ref = { sessionId: 'trip' };
const turns = Array.from({ length: 10 }, (_, index) => [
  { role: 'user' as const, content: `Question ${index}: tell me about city number ${index} in Portugal.` },
  { role: 'assistant' as const, content: `City ${index} has a castle, a river and famous pastries.` },
]).flat();

async function setup(writer?: SummaryWriter, beforeSummarize?: (messages: readonly StoredMessage[]) => void) {
  const store = createMemoryStore();
  const engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: false });
  await engram.sessions.append(ref, turns);
  const summarizer = createSessionSummarizer({
    store,
    sessions: engram.sessions,
    policy: { contextWindow: 400, threshold: 0.5, keepRecent: 0.25 },
    ...(writer ? { writer } : {}),
    ...(beforeSummarize ? { beforeSummarize: async (_ref, messages) => beforeSummarize(messages) } : {}),
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
    const leaving: StoredMessage[] = [];
    const { engram, summarizer } = await setup(undefined, (messages) => leaving.push(...messages));
    const outcome = await summarizer.summarize(ref);
    expect(outcome).toMatchObject({ status: 'summarized', writer: 'extractive' });
    const session = await engram.sessions.get(ref);
    expect(session?.context).toContain('City 0 has a castle');
    const throughSeq = outcome.status === 'summarized' ? outcome.throughSeq : 0;
    expect(leaving.map((message) => message.seq)).toEqual(
      Array.from({ length: throughSeq }, (_, i) => i + 1),
    );
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

  it('gives way to a summarizer that recorded first', async () => {
    const { engram, summarizer } = await setup(async () => {
      await engram.sessions.recordSummary(ref, { context: 'Other.', throughSeq: 1, expectedThroughSeq: 0 });
      return 'Mine.';
    });
    expect(await summarizer.summarize(ref)).toEqual({ status: 'skipped', reason: 'superseded' });
    expect((await engram.sessions.get(ref))?.context).toBe('Other.');
  });
});
