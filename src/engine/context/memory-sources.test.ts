import { describe, expect, it } from 'vitest';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';

describe('the semantic source in a turn', () => {
  it('records a memory the session removed as excluded, removed_by_user, with its text kept out', async () => {
    const engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    const session = { sessionId: 'chat', userId: 'ada', tenantId: 'default' };
    await engram.sessions.append(session, [{ role: 'user', content: 'Hello' }]);
    const { inserted } = await engram.memories.create('default', [
      { text: 'Ada prefers replacements over refunds.', userId: 'ada' },
    ]);
    const id = inserted[0]?.id as string;
    const turn = (removedIds: string[]) =>
      engram.assemble({ session, message: 'Refund or replacement?', removedIds });
    const items = async (removedIds: string[]) => {
      const { trace } = await turn(removedIds);
      return trace.sections.flatMap((section) => section.items).filter((item) => item.id === id);
    };
    expect(await items([])).toEqual([expect.objectContaining({ included: true, reason: 'included' })]);
    expect(await items([id])).toEqual([
      expect.objectContaining({ included: false, reason: 'removed_by_user' }),
    ]);
    const { messages } = await turn([id]);
    expect(JSON.stringify(messages)).not.toContain('replacements over refunds');
    await engram.close();
  });

  it('searches a message longer than a search takes by its start and end, instead of failing', async () => {
    const engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    await engram.memories.create('default', [{ text: 'Ada prefers window seats on trains.', userId: 'ada' }]);
    const pasted = 'Here is the travel document I was sent this morning. '.repeat(400);
    for (const message of [
      `Which seat does Ada prefer on trains? ${pasted}`,
      `${pasted} Which seat does Ada prefer on trains?`,
    ]) {
      expect(message.length).toBeGreaterThan(20_000);
      const { trace } = await engram.assemble({ session: { sessionId: 'paste', userId: 'ada' }, message });
      expect(trace.degraded).toBe(false);
      const knowledge = trace.sections.find((section) => section.name === 'knowledge');
      expect(knowledge?.items.some((item) => item.included)).toBe(true);
    }
    await engram.close();
  });
});
