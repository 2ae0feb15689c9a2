import { describe, expect, it } from 'vitest';
import { createEventLoopSlicer, nextTurn } from './event-loop-slicer.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // work that holds the loop
  }
};

describe('event-loop slicer', () => {
  it('lets other work run between slices, even with several slicing at once', async () => {
    // A timer firing once per turn of the loop numbers the turns (slices last longer than 1 ms).
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn += 1;
      if (ticking) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const turnsOfSlices: number[] = [];
    const worker = async () => {
      const slicer = createEventLoopSlicer(1);
      for (let step = 0; step < 6; step += 1) {
        turnsOfSlices.push(turn);
        busy(2);
        await slicer.pause();
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    ticking = false;
    expect(turnsOfSlices).toHaveLength(18);
    // No two slices in one turn: each resumed after the loop came round (timers, then I/O).
    expect(new Set(turnsOfSlices.slice(3)).size).toBe(turnsOfSlices.length - 3);
  });

  it('gives work starting in a turn that resumed sliced work what is left of that slice', async () => {
    const first = createEventLoopSlicer(5);
    busy(6);
    await first.pause();
    // Resumed: this turn's slice began now. A decode ends here, and an answer's serialization starts.
    busy(4);
    const next = createEventLoopSlicer(5);
    busy(2);
    expect(next.pause()).toBeInstanceOf(Promise);
    // Once that turn is over, a new slicer has a slice of its own.
    await new Promise((resolve) => setTimeout(resolve, 1));
    const later = createEventLoopSlicer(5);
    busy(2);
    expect(later.pause()).toBeUndefined();
    // Two phases in one turn without a yield (a short decode, then a serialization) share a slice.
    await new Promise((resolve) => setTimeout(resolve, 1));
    const decode = createEventLoopSlicer(5);
    busy(4);
    expect(decode.pause()).toBeUndefined();
    const serialize = createEventLoopSlicer(5);
    busy(2);
    expect(serialize.pause()).toBeInstanceOf(Promise);
  });

  it('answers undefined while the slice goes on, a promise once it has passed', async () => {
    const slicer = createEventLoopSlicer(1_000);
    expect(slicer.pause()).toBeUndefined();
    const yielding = createEventLoopSlicer(0);
    busy(1);
    const wait = yielding.pause();
    expect(wait).toBeInstanceOf(Promise);
    await expect(wait).resolves.toBe(true);
    expect(yielding.turns).toBe(1);
  });

  it('resumes waiters in the order they came', async () => {
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3].map(async (index) => {
        await nextTurn();
        order.push(index);
      }),
    );
    expect(order).toEqual([1, 2, 3]);
  });
});
