import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createTaskProgressLog } from './task-progress.js';

describe('task progress', () => {
  it('keeps the latest report per tenant and task; onlyIfNone never overwrites a report', async () => {
    const progress = createTaskProgressLog(createMemoryStore().documents);
    await progress.report('t1', 'job1', { phase: 'chunking', chunks: 3 });
    await progress.report('t1', 'job1', { phase: 'queued', chunks: 0 }, { onlyIfNone: true });
    expect(await progress.get('t1', 'job1')).toEqual({ phase: 'chunking', chunks: 3 });
    await progress.report('t1', 'job2', { phase: 'queued', chunks: 0 }, { onlyIfNone: true });
    expect(await progress.get('t1', 'job2')).toEqual({ phase: 'queued', chunks: 0 });
    await progress.report('t1', 'job1', { phase: 'done', chunks: 9 });
    expect(await progress.get('t1', 'job1')).toEqual({ phase: 'done', chunks: 9 });
    expect(await progress.get('t2', 'job1')).toBeNull();
  });
});
