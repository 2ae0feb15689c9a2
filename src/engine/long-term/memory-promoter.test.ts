import { describe, expect, it } from 'vitest';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createMemoryPromoter } from './memory-promoter.js';

const ref = { sessionId: 's1', userId: 'ada' };

async function setup() {
  const store = createMemoryStore();
  const engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: false });
  // The test drives the promoter itself: no background promotion job may race it.
  await engram.jobs.close();
  const promoter = createMemoryPromoter({ store, memories: engram.memories, clock: () => new Date() });
  return { engram, promoter };
}

describe('memory promoter', () => {
  it('stores pending memories, marks them persisted, and promoting twice creates nothing', async () => {
    const { engram, promoter } = await setup();
    await engram.sessions.put(ref, {
      memories: [
        { id: 'm1', text: 'Ada lives in Lisbon.', userId: 'ada', memoryType: 'semantic' },
        { id: 'm2', text: 'Ada is allergic to peanuts.', userId: 'ada', topics: ['health'] },
      ],
    });
    expect(await promoter.promote(ref)).toEqual({ created: ['m1', 'm2'], versioned: [], unchanged: [] });
    const stored = await engram.memories.get('default', 'm2');
    expect(stored).toMatchObject({ text: 'Ada is allergic to peanuts.', userId: 'ada', topics: ['health'] });
    const session = await engram.sessions.get(ref);
    expect(session?.memories.every((memory) => memory.persistedAt !== null)).toBe(true);
    expect(await promoter.promote(ref)).toEqual({ created: [], versioned: [], unchanged: [] });
    expect((await engram.memories.list('default')).total).toBe(2);
  });

  it('an updated fact with the same id becomes a new version under that id, the old one in its history', async () => {
    const { engram, promoter } = await setup();
    await engram.sessions.put(ref, {
      memories: [{ id: 'home', text: 'Ada lives in Lisbon.', userId: 'ada' }],
    });
    await promoter.promote(ref);
    await engram.sessions.patch(ref, {
      memories: [{ id: 'home', text: 'Ada moved to Porto in 2026.', userId: 'ada' }],
    });
    const result = await promoter.promote(ref);
    expect(result.versioned).toEqual(['home']);
    expect(await engram.memories.get('default', 'home')).toMatchObject({
      text: 'Ada moved to Porto in 2026.',
      version: 2,
    });
    const history = (await engram.memories.history('default', 'home')).versions;
    expect(history.map((version) => version.text)).toEqual([
      'Ada moved to Porto in 2026.',
      'Ada lives in Lisbon.',
    ]);
    expect((await engram.memories.list('default', {}, { limit: 10 })).total).toBe(1);
    // Once more with the same text: the chain's current version already says it.
    await engram.sessions.patch(ref, {
      memories: [{ id: 'home', text: 'Ada moved to Porto in 2026.', userId: 'ada' }],
    });
    expect(await promoter.promote(ref)).toEqual({ created: [], versioned: [], unchanged: ['home'] });
  });

  it('a pending memory with the id of a knowledge chunk or a procedure never changes it', async () => {
    const { engram, promoter } = await setup();
    await engram.memories.create('default', [
      { id: 'chunk', text: 'Returns within 30 days.', agentId: 'support', documentId: 'returns' },
      { id: 'proc', text: 'Damaged item', agentId: 'support', memoryType: 'procedural' },
    ]);
    await engram.sessions.put(ref, {
      memories: [
        { id: 'chunk', text: 'Returns within 365 days.', userId: 'ada' },
        { id: 'proc', text: 'Refund everything', userId: 'ada' },
      ],
    });
    expect(await promoter.promote(ref)).toEqual({
      created: [],
      versioned: [],
      unchanged: [],
      refused: ['chunk', 'proc'],
    });
    expect(await engram.memories.get('default', 'chunk')).toMatchObject({
      text: 'Returns within 30 days.',
      supersededBy: null,
    });
    expect(await engram.memories.get('default', 'proc')).toMatchObject({
      text: 'Damaged item',
      supersededBy: null,
    });
  });

  it("a memory without its own scope inherits the session's namespace, user and session", async () => {
    const { engram, promoter } = await setup();
    const scoped = { sessionId: 'chat-7', namespace: 'travel', userId: 'ada' };
    await engram.sessions.put(scoped, { memories: [{ id: 'bare', text: 'Ada prefers aisle seats.' }] });
    await promoter.promote(scoped);
    expect(await engram.memories.get('default', 'bare')).toMatchObject({
      namespace: 'travel',
      userId: 'ada',
      sessionId: 'chat-7',
    });
  });

  it('does not store an identical copy of a memory the user already has', async () => {
    const { engram, promoter } = await setup();
    await engram.memories.create('default', [{ id: 'old', text: 'Ada likes green tea.', userId: 'ada' }]);
    await engram.sessions.put(ref, {
      memories: [
        { id: 'copy', text: 'Ada likes green tea.', userId: 'ada' },
        { id: 'other', text: 'Ada plays the cello on Sundays.', userId: 'ada' },
      ],
    });
    expect(await promoter.promote(ref)).toEqual({ created: ['other'], versioned: [], unchanged: ['copy'] });
  });

  it('keeps memories added to the session while promoting, unpromoted', async () => {
    const { engram, promoter } = await setup();
    await engram.sessions.put(ref, {
      memories: [{ id: 'a', text: 'Ada speaks Portuguese.', userId: 'ada' }],
    });
    const original = engram.memories.create.bind(engram.memories);
    engram.memories.create = async (tenantId, inputs) => {
      const session = await engram.sessions.get(ref);
      await engram.sessions.patch(ref, {
        memories: [
          ...(session?.memories ?? []),
          { id: 'b', text: 'Ada has a cat named Rui.', userId: 'ada' },
        ],
      });
      return original(tenantId, inputs);
    };
    await promoter.promote(ref);
    const memories = (await engram.sessions.get(ref))?.memories ?? [];
    expect(memories.map((memory) => [memory.id, memory.persistedAt !== null])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });
});
