/**
 * How long work may hold the event loop before it lets other requests run. A request arriving
 * during a slice waits for its end: with 4 ms slices a health check's median under a sliced input
 * was 2.3–4.2 ms against 0.3–0.7 ms quiet, with 2 ms 1.3–2.7 ms (bench/adversarial.ts). Each
 * yield costs microseconds, so long work takes about as long as with longer slices.
 */
export const DEFAULT_SLICE_MS = 2;

/** Work waiting to go on, first come first served: one resumes per turn of the event loop. */
const waiting: (() => void)[] = [];
let scheduled = false;

/**
 * When the sliced work of the current turn of the event loop began (undefined once that turn is
 * over): a turn that resumed sliced work, or in which a slicer was created. A slicer created
 * during it counts its slice from then: one sliced phase ending and the next starting in the same
 * turn (a store read's decoded chunks, then the answer's serialization) held the loop for a
 * slice of each, back to back.
 */
let turnStart: number | undefined;
let turnsOpened = 0;

/**
 * Marks the current turn as begun at `now`. It ends at the next check phase (work begun in the
 * poll phase) or at the next timers phase (work resumed in the check phase, whose immediates
 * would run only a turn later, after that turn's I/O had inherited the spent slice), whichever
 * comes first; a later turn's opening is not ended by this one's.
 */
function openTurn(now: number): number {
  turnStart = now;
  const opened = ++turnsOpened;
  const close = () => {
    if (turnsOpened === opened) turnStart = undefined;
  };
  setImmediate(close);
  setTimeout(close, 0).unref();
  return now;
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(resumeNext);
}

/**
 * Resumes the longest-waiting work; whatever still waits goes on in a later turn (an immediate
 * queued from inside one runs in the next turn of the loop, after its I/O). With one immediate per
 * waiter, every waiter resumed in the same check phase, back to back: two requests slicing at
 * once held the loop for two slices (a 900 KB message's token count beside its summary job's).
 */
function resumeNext(): void {
  scheduled = false;
  openTurn(performance.now());
  waiting.shift()?.();
  if (waiting.length > 0) schedule();
}

/**
 * Characters of text from which one pass over it (joining a body, parsing it, encoding an answer)
 * gets a turn of the event loop of its own: on the 2-vCPU development machine a fresh 256K-character
 * string costs about a millisecond of page faults, a 900 KB one ~3 ms, each pass.
 */
export const ALONE_CHARS = 256 * 1024;

/**
 * Resolves on a later turn of the event loop, after pending I/O callbacks (a `/v1/health`
 * request), and after every caller that was already waiting has had its own turn.
 */
export const nextTurn = () =>
  new Promise<void>((resolve) => {
    waiting.push(resolve);
    schedule();
  });

/**
 * Cuts long synchronous work into slices: call `pause()` between steps; once `sliceMs` have passed
 * since the last yield (or since the current turn's sliced work began, for a slicer created in a
 * turn where other sliced work ran) it returns a promise that resolves (true) on a later turn of
 * the event loop (setImmediate, so I/O callbacks run first), and otherwise undefined: the slice
 * goes on, and a hot loop goes on without an `await` (`const wait = pause(); if (wait) await
 * wait;`). `turns` counts the yields.
 */
export function createEventLoopSlicer(sliceMs = DEFAULT_SLICE_MS): {
  /** A promise resolving true when it yields; undefined when the slice goes on. */
  pause(): Promise<boolean> | undefined;
  turns: number;
} {
  // Work that starts in a turn other sliced work already used gets what is left of that slice.
  let sliceStart = turnStart ?? openTurn(performance.now());
  const slicer = {
    turns: 0,
    // Not an async function, and no promise when it does not yield: a 100,000-message PUT calls
    // this several times per message. A new promise per call was 43 MB of the ~1 GB such a PUT
    // allocated; an `await` per call, even of a settled promise, suspended the loop each time and
    // kept its objects alive into the collector's next pause, which copied them (about a third of
    // the PUT's parse time, and pauses half as long again).
    pause(): Promise<boolean> | undefined {
      if (performance.now() - sliceStart < sliceMs) return undefined;
      return nextTurn().then(() => {
        slicer.turns++;
        sliceStart = performance.now();
        return true;
      });
    },
  };
  return slicer;
}

/**
 * Runs stepwise work (a generator that yields between steps) to its end, letting other requests
 * run whenever `pause` says a slice is over (by default a slicer of its own).
 */
export async function drainInSlices<T>(
  steps: Generator<void, T>,
  pause: () => Promise<unknown> | undefined = createEventLoopSlicer().pause,
): Promise<T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    const wait = pause();
    if (wait) await wait;
  }
}
