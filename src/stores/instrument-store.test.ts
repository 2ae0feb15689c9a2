import { describe, expect, it } from 'vitest';
import { StoreError } from '../core/errors.js';
import { instrumentStore } from './instrument-store.js';
import { createMemoryStore } from './memory/memory-store.js';

describe('instrumentStore', () => {
  it('times every part of the store and passes results and errors through', async () => {
    const calls: [string, boolean][] = [];
    const store = instrumentStore(createMemoryStore(), (operation, seconds, ok) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      calls.push([operation, ok]);
    });
    const key = { tenantId: 't', namespace: null, userId: null, sessionId: 's' };
    expect(await store.getSession(key)).toBeNull();
    await store.documents.putDocument('t', 'agents', 'a', { name: 'x' });
    expect((await store.memories.countMemories('t', { includeSuperseded: false })) + 1).toBe(1);
    expect(store.driver).toBe('memory');
    await store.close();
    await expect(store.jobs.getJob('t', 'missing')).rejects.toBeInstanceOf(StoreError);
    expect(calls).toEqual([
      ['sessions.getSession', true],
      ['documents.putDocument', true],
      ['memories.countMemories', true],
      ['sessions.close', true],
      ['jobs.getJob', false],
    ]);
  });
});
