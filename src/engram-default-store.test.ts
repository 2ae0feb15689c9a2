import { describe, expect, it, vi } from 'vitest';
import { ValidationError } from './core/errors.js';

/** The default store, observed: a memory store standing in for ./data/engram.db. */
const opened = vi.hoisted(() => ({ count: 0, closed: 0 }));
vi.mock('./stores/sqlite/sqlite-store.js', async () => {
  const { createMemoryStore } = await import('./stores/memory/memory-store.js');
  return {
    createSqliteStore: async () => {
      opened.count++;
      const store = createMemoryStore();
      const close = store.close.bind(store);
      store.close = async () => {
        opened.closed++;
        await close();
      };
      return store;
    },
  };
});

const { createEngram } = await import('./engram.js');

describe('createEngram with its default store', () => {
  it('closes the store it opened when an option is refused, and keeps it when all is well', async () => {
    await expect(createEngram({ jobs: { concurrency: 0 } })).rejects.toBeInstanceOf(ValidationError);
    expect(opened).toEqual({ count: 1, closed: 1 });
    const engram = await createEngram({ sweepIntervalMs: 0 });
    expect(opened).toEqual({ count: 2, closed: 1 });
    await engram.close();
    expect(opened.closed).toBe(2);
  });

  it('refuses a misspelt option before opening anything', async () => {
    const misspelt = { sweepIntervalMs: 0, traceRetension: 5 } as Parameters<typeof createEngram>[0];
    await expect(createEngram(misspelt)).rejects.toThrow(
      /Unknown createEngram option "traceRetension" \(known: store, .*traceRetention/,
    );
    expect(opened).toEqual({ count: 2, closed: 2 });
  });
});
