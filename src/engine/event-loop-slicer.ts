/**
 * How long work may hold the event loop before it lets other requests run. 4 ms keeps a health
 * check's wait within a few times its quiet latency (bench/adversarial.ts); each yield costs
 * microseconds, so long work takes about as long as with longer slices.
 */
export const DEFAULT_SLICE_MS = 4;

/** Resolves on the next turn of the event loop, after pending I/O callbacks (a `/v1/health` request). */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Cuts long synchronous work into slices: call `pause()` between steps; it yields to the event loop
 * (setImmediate, so I/O callbacks run first) once `sliceMs` have passed since the last yield, and
 * resolves at once otherwise (true when it yielded). `turns` counts the yields.
 */
export function createEventLoopSlicer(sliceMs = DEFAULT_SLICE_MS): {
  /** Resolves true when it yielded. */
  pause(): Promise<boolean>;
  turns: number;
} {
  let sliceStart = performance.now();
  const slicer = {
    turns: 0,
    async pause() {
      if (performance.now() - sliceStart < sliceMs) return false;
      await nextTurn();
      slicer.turns++;
      sliceStart = performance.now();
      return true;
    },
  };
  return slicer;
}
