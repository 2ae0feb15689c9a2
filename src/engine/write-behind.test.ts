import { describe, expect, it } from 'vitest';
import { WriteBehind } from './write-behind.js';

describe('WriteBehind', () => {
  it('writes nothing on push, then everything queued in batches of `batchSize`, in order', async () => {
    const batches: number[][] = [];
    const queue = new WriteBehind<number>({
      write: async (batch) => {
        batches.push(batch);
      },
      onError: () => {},
      batchSize: 3,
      delayMs: 60_000,
    });
    queue.push(1);
    queue.push(2);
    expect(batches).toEqual([]);
    expect(queue.pending).toBe(2);
    queue.push(3); // a full batch goes at once
    queue.push(4);
    await queue.flush();
    expect(batches).toEqual([[1, 2, 3], [4]]);
    expect(queue.pending).toBe(0);
  });

  it('drops items past its capacity and counts them; a failed batch is reported, the next written', async () => {
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const written: number[] = [];
    const errors: unknown[] = [];
    let calls = 0;
    const queue = new WriteBehind<number>({
      write: async (batch) => {
        calls += 1;
        if (calls === 1) await blocked;
        if (calls === 2) throw new Error('disk full');
        written.push(...batch);
      },
      onError: (error) => errors.push(error),
      capacity: 2,
      batchSize: 1,
      delayMs: 60_000,
    });
    expect(queue.push(1)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve)); // the first (blocked) write took it
    expect(queue.push(2)).toBe(true);
    expect(queue.push(3)).toBe(true);
    expect(queue.push(4)).toBe(false);
    expect(queue.dropped).toBe(1);
    release();
    await queue.close();
    expect(queue.push(5)).toBe(false);
    expect(errors).toHaveLength(1);
    expect(written).toEqual([1, 3]);
  });

  it('writes on its own after `delayMs`', async () => {
    const written: number[] = [];
    const queue = new WriteBehind<number>({
      write: async (batch) => {
        written.push(...batch);
      },
      onError: () => {},
      delayMs: 5,
    });
    queue.push(7);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toEqual([7]);
  });
});
