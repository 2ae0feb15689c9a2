import type { EngramStore } from '../../stores/engram-store.js';
import type { JobRunner } from '../jobs/job-runner.js';
import { enqueueSessionEnd } from './session-end.js';
import { endedThrough, readEndMark } from './session-end-marks.js';

export interface InactivitySweeperOptions {
  store: EngramStore;
  jobs: JobRunner;
  clock: () => Date;
  /** A session with no write for this long is ended. Default 30 min. */
  idleMs?: number;
  /** How often `start()` sweeps. Default 60 s. */
  intervalMs?: number;
  /**
   * How far before the idle cutoff the first sweep of a process looks (later sweeps continue where
   * the previous one stopped). Default 7 days.
   */
  lookbackMs?: number;
  /** Sessions read per store call. Default 200. */
  pageSize?: number;
  onError: (error: unknown) => void;
}

/** Ends inactive sessions: finds them periodically and enqueues their `end-session` jobs. */
export interface InactivitySweeper {
  /** One sweep now; resolves how many sessions it enqueued an end for. */
  sweep(): Promise<number>;
  /** Sweeps every `intervalMs` (timer unref'd; a sweep still running skips the next tick). */
  start(): void;
  /** Stops the timer and waits for a sweep in flight. */
  stop(): Promise<void>;
}

/**
 * The sweep walks sessions whose last write falls in [previous cutoff, now − idleMs) through
 * `store.listIdleSessions` (every tenant), skips those whose end mark already covers their last
 * seq, and enqueues one job for each of the others. It never does the work inline; the job's
 * idempotency key (session + last seq) makes overlapping sweeps and explicit ends harmless.
 */
export function createInactivitySweeper(options: InactivitySweeperOptions): InactivitySweeper {
  const { store, jobs, clock } = options;
  const idleMs = options.idleMs ?? 30 * 60_000;
  const intervalMs = options.intervalMs ?? 60_000;
  const lookbackMs = options.lookbackMs ?? 7 * 24 * 3_600_000;
  const pageSize = options.pageSize ?? 200;
  /** Where the next sweep starts: the previous sweep's cutoff, once one has finished. */
  let sweptUntil: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | null = null;

  async function sweep(): Promise<number> {
    const cutoff = clock().getTime() - idleMs;
    const from = sweptUntil ?? cutoff - lookbackMs;
    let enqueued = 0;
    let after: string | undefined;
    do {
      const page = await store.listIdleSessions({
        updatedFrom: new Date(from).toISOString(),
        updatedBefore: new Date(cutoff).toISOString(),
        limit: pageSize,
        ...(after === undefined ? {} : { after }),
      });
      for (const session of page.sessions) {
        if (session.lastSeq === 0) continue;
        const stored = await readEndMark(store.documents, session, session.createdAt);
        if (endedThrough(stored) >= session.lastSeq) continue;
        await enqueueSessionEnd(jobs, session, session, null);
        enqueued += 1;
      }
      after = page.cursor ?? undefined;
    } while (after !== undefined);
    // Only a finished sweep moves the start: a failed one is repeated from the same point.
    sweptUntil = Math.max(sweptUntil ?? from, cutoff);
    return enqueued;
  }

  return {
    sweep,
    start() {
      if (timer || intervalMs <= 0) return;
      timer = setInterval(() => {
        if (sweeping) return;
        sweeping = sweep()
          .catch(options.onError)
          .finally(() => {
            sweeping = null;
          });
      }, intervalMs).unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await sweeping;
    },
  };
}
