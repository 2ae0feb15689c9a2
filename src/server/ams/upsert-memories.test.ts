import { describe, expect, it } from 'vitest';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { upsertMemories } from './upsert-memories.js';

describe('upsertMemories', () => {
  it('concurrent creates that name one id are written over in turn: none fails, nothing is lost', async () => {
    const engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    const writers = Array.from({ length: 12 }, (_, index) => index);
    await engram.memories.create('default', [
      { id: 'shared', text: 'Shared, first text' },
      ...writers.map((index) => ({ id: `own-${index}`, text: `Own ${index}` })),
    ]);
    const results = await Promise.allSettled(
      writers.map((index) =>
        upsertMemories(engram, 'default', [
          { id: `own-${index}`, text: `Own ${index}, edited` },
          { id: 'shared', text: `Shared, written by ${index}` },
          { id: `new-${index}`, text: `New ${index}` },
        ]),
      ),
    );
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    for (const index of writers) {
      expect((await engram.memories.get('default', `own-${index}`)).text).toBe(`Own ${index}, edited`);
      expect((await engram.memories.get('default', `new-${index}`)).text).toBe(`New ${index}`);
    }
    expect((await engram.memories.get('default', 'shared')).text).toMatch(/^Shared, written by \d+$/);
    await engram.close();
  });
});
