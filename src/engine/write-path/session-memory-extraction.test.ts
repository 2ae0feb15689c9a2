import { describe, expect, it } from 'vitest';
import { createEngram } from '../../engram.js';
import { JobLeaseLostError } from '../../stores/job-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createSessionCursors, EXTRACTION_CURSORS } from './session-cursors.js';
import { createSessionMemoryExtraction } from './session-memory-extraction.js';

describe('session memory extraction', () => {
  it('confirms the job is still its own after the model answered, before writing anything', async () => {
    const store = createMemoryStore();
    const engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: false });
    const key = { tenantId: 'default', namespace: null, userId: 'ada', sessionId: 'trip' };
    await engram.sessions.append(key, [{ role: 'user', content: 'I moved to Lisbon.' }]);
    const cursors = createSessionCursors(store.documents, EXTRACTION_CURSORS);
    const extraction = createSessionMemoryExtraction({
      store,
      memories: engram.memories,
      cursors,
      extractor: async () => [{ text: 'Ada lives in Lisbon' }],
      clock: () => new Date(),
      batchMessages: 50,
    });
    const lost = new JobLeaseLostError({ tenantId: 'default', id: 'job-1', workerId: 'w1', attempt: 1 });
    await expect(
      extraction(key, {
        confirmLease: async () => {
          throw lost;
        },
      }),
    ).rejects.toBe(lost);
    expect((await engram.memories.list('default')).total).toBe(0);
    const state = await store.getSession(key);
    expect((await cursors.read({ ...key, createdAt: state?.createdAt as string })).seq).toBe(0);
    await engram.close();
  });

  it('replays the stored answer after a crash between creating memories and moving the cursor', async () => {
    const store = createMemoryStore();
    const engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: false });
    const key = { tenantId: 'default', namespace: null, userId: 'ada', sessionId: 'trip' };
    await engram.sessions.append(key, [{ role: 'user', content: 'I moved to Lisbon.' }]);
    const cursors = createSessionCursors(store.documents, EXTRACTION_CURSORS);
    // The process dies right after the memories are created: the cursor never moves past seq 0.
    const crashing = {
      ...cursors,
      move: async () => {
        throw new Error('killed');
      },
    };
    const answers = ['Ada lives in Lisbon', 'Ada has moved to Lisbon'];
    const options = {
      store,
      memories: engram.memories,
      extractor: async () => [{ text: answers.shift() as string }],
      clock: () => new Date(),
      batchMessages: 50,
    };
    await expect(createSessionMemoryExtraction({ ...options, cursors: crashing })(key)).rejects.toThrow(
      'killed',
    );
    // The retry (a new attempt after the lease expired) must not write a second wording of the fact.
    await createSessionMemoryExtraction({ ...options, cursors })(key);
    const texts = (await engram.memories.list('default')).memories.map((memory) => memory.text);
    expect(texts).toEqual(['Ada lives in Lisbon']);
    const state = await store.getSession(key);
    expect((await cursors.read({ ...key, createdAt: state?.createdAt as string })).seq).toBe(1);
    await engram.close();
  });

  it('lets one of two jobs extracting the same messages at once write (summary and extraction)', async () => {
    const store = createMemoryStore();
    const engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: false });
    const key = { tenantId: 'default', namespace: null, userId: 'ada', sessionId: 'trip' };
    await engram.sessions.append(key, [{ role: 'user', content: 'I moved to Lisbon.' }]);
    // Both jobs hold valid leases and ask the model before either writes; it words the fact twice.
    let arrived = 0;
    let release: () => void = () => {};
    const together = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answers = ['Ada lives in Lisbon', 'Ada has moved to Lisbon'];
    const extraction = createSessionMemoryExtraction({
      store,
      memories: engram.memories,
      cursors: createSessionCursors(store.documents, EXTRACTION_CURSORS),
      extractor: async () => {
        const text = answers.shift() as string;
        arrived += 1;
        if (arrived === 2) release();
        await together;
        return [{ text }];
      },
      clock: () => new Date(),
      batchMessages: 50,
    });
    const outcomes = await Promise.allSettled([
      extraction(key, { throughSeq: 1, confirmLease: async () => {} }),
      extraction(key, { confirmLease: async () => {} }),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const texts = (await engram.memories.list('default')).memories.map((memory) => memory.text);
    expect(texts).toHaveLength(1);
    await engram.close();
  });
});
