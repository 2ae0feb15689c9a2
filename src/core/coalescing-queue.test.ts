import { describe, expect, it } from 'vitest';
import { coalescingQueue } from './coalescing-queue.js';

/** A task whose runs are counted and each held until released. */
function gatedTask() {
  const releases: (() => void)[] = [];
  let started = 0;
  let running = 0;
  let overlapped = false;
  const task = () => {
    started += 1;
    running += 1;
    if (running > 1) overlapped = true;
    const run = started;
    return new Promise<number>((resolve) => {
      releases.push(() => {
        running -= 1;
        resolve(run);
      });
    });
  };
  return {
    task,
    started: () => started,
    overlapped: () => overlapped,
    release: async () => {
      releases.shift()?.();
      // Lets the queue start the next run.
      for (let turn = 0; turn < 5; turn += 1) await Promise.resolve();
    },
  };
}

describe('coalescingQueue', () => {
  it('runs one task per key at a time; calls during a run share the one run queued after it', async () => {
    const run = coalescingQueue<number>();
    const gate = gatedTask();
    const first = run('a', gate.task);
    const second = run('a', gate.task);
    const third = run('a', gate.task);
    expect(gate.started()).toBe(1); // the later calls wait: their run must start after their call
    await gate.release();
    expect(await first).toBe(1);
    expect(gate.started()).toBe(2);
    await gate.release();
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    expect(gate.overlapped()).toBe(false);
  });

  it('keeps keys apart, and starts afresh once a key is idle', async () => {
    const run = coalescingQueue<number>();
    const gate = gatedTask();
    const a = run('a', gate.task);
    const b = run('b', gate.task);
    expect(gate.started()).toBe(2);
    await gate.release();
    await gate.release();
    expect([await a, await b]).toEqual([1, 2]);
    const again = run('a', gate.task);
    expect(gate.started()).toBe(3);
    await gate.release();
    expect(await again).toBe(3);
  });

  it('runs the queued call after a run that failed', async () => {
    const run = coalescingQueue<string>();
    const failing = run('a', () => Promise.reject(new Error('down')));
    const next = run('a', () => Promise.resolve('up'));
    await expect(failing).rejects.toThrow('down');
    expect(await next).toBe('up');
  });
});
