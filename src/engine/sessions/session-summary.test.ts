import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors.js';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';

describe('summarized sessions', () => {
  async function summarizedSession() {
    const engram = await createEngram({
      store: createMemoryStore(),
      sweepIntervalMs: 0,
      defaultSources: false,
    });
    const ref = { sessionId: 's1' };
    await engram.sessions.append(ref, [
      { role: 'user', content: 'My name is Ada and I am planning a trip to Lisbon.' },
      { role: 'assistant', content: 'Noted, Ada.' },
      { role: 'user', content: 'What should I pack?' },
      { role: 'assistant', content: 'Light clothes and good shoes.' },
    ]);
    await engram.sessions.recordSummary(ref, {
      context: 'Ada is planning a trip to Lisbon.',
      throughSeq: 2,
      expectedThroughSeq: 0,
    });
    return { engram, ref };
  }

  it('working memory holds only the unsummarized messages; the log keeps them all', async () => {
    const { engram, ref } = await summarizedSession();
    const session = await engram.sessions.get(ref);
    expect(session?.context).toBe('Ada is planning a trip to Lisbon.');
    expect(session?.messages.map((message) => message.seq)).toEqual([3, 4]);
    const log = await engram.sessions.get(ref, { includeSummarized: true });
    expect(log?.messages.map((message) => message.seq)).toEqual([1, 2, 3, 4]);
    const recent = await engram.sessions.get(ref, { recentMessagesLimit: 10 });
    expect(recent?.messages.map((message) => message.seq)).toEqual([3, 4]);
  });

  it('assembly puts the summary in place of the summarized messages', async () => {
    const { engram, ref } = await summarizedSession();
    const { context, trace } = await engram.assemble({
      session: ref,
      message: 'And the weather?',
      format: 'neutral',
    });
    const text = context.map((message) => message.content).join('\n');
    expect(text).toContain('Ada is planning a trip to Lisbon.');
    expect(text).toContain('What should I pack?');
    expect(text).not.toContain('Noted, Ada.');
    expect(JSON.stringify(trace)).not.toContain('"seq":1');
  });

  it('rejects an empty summary and keeps the previous one', async () => {
    const { engram, ref } = await summarizedSession();
    await expect(
      engram.sessions.recordSummary(ref, { context: '  ', throughSeq: 4, expectedThroughSeq: 2 }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect((await engram.sessions.get(ref))?.context).toBe('Ada is planning a trip to Lisbon.');
  });
});
