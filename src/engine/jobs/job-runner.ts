import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import { parseWith } from '../../core/errors.js';
import { type JsonObject, jsonObjectSchema } from '../../core/schemas/json.js';
import {
  type Job,
  JobLeaseLostError,
  type JobListQuery,
  type JobStore,
  leaseOf,
} from '../../stores/job-store.js';
import { newId } from '../new-id.js';
import { failureOf, isRetryable, type RetryPolicy, retryDelayMs } from './job-retry.js';

/** What a handler gets besides the payload: the job (attempt, tenant) and a signal to stop early. */
export interface JobContext {
  job: Job;
  /** Aborted when the runner closes or the lease was lost; the attempt's outcome no longer counts. */
  signal: AbortSignal;
  /**
   * Renews the lease now, and throws JobLeaseLostError when another worker has claimed the job:
   * call it right before a write that cannot be taken back. The heartbeat alone finds a lost
   * lease only on its next beat, and a worker that stalled (a long pause, a stopped process)
   * resumes before that beat, with another worker already redoing its job.
   */
  confirmLease(): Promise<void>;
}

/** Does one job's work; its result (a JSON object) is kept on the job. Throwing fails the attempt. */
export type JobHandler = (payload: JsonObject, context: JobContext) => Promise<JsonObject | null | undefined>;

export interface JobRunnerOptions {
  store: JobStore;
  clock?: () => Date;
  /** Names this process in leases. Default: host, pid and a random suffix. */
  workerId?: string;
  /** How long a claim holds a job without a heartbeat; heartbeats run every third of it. Default 60 s. */
  leaseMs?: number;
  /** Jobs run at once by this runner. Default 1. */
  concurrency?: number;
  /** Polling when idle: starts at `minPollMs`, doubles while nothing is due, up to `maxPollMs`. */
  minPollMs?: number;
  maxPollMs?: number;
  /** Backoff between attempts. Default 1 s doubling, capped at 5 min. */
  retry?: Partial<RetryPolicy>;
  /** Attempts of a job whose enqueue and handler do not say. Default 5. */
  defaultMaxAttempts?: number;
  /** A failed attempt (the job itself records it; this is for logs). */
  onJobError?: (error: unknown, job: Job, willRetry: boolean) => void;
  /** Failures of the runner itself (the store did not answer). Default: printed to stderr. */
  onError?: (error: unknown) => void;
  /** Jitter source, for deterministic tests. */
  random?: () => number;
}

/** The runner's numbers; concurrency 0 (or NaN) would leave its loop waiting on nothing forever. */
const runnerSettingsSchema = z.object({
  workerId: z.string().min(1).max(256).optional(),
  leaseMs: z.number().int().min(3).optional(),
  concurrency: z.number().int().min(1).max(1_000).optional(),
  minPollMs: z.number().positive().optional(),
  maxPollMs: z.number().positive().optional(),
  retry: z
    .object({ baseDelayMs: z.number().min(0).optional(), maxDelayMs: z.number().min(0).optional() })
    .optional(),
  defaultMaxAttempts: z.number().int().min(1).max(100).optional(),
});

const enqueueSchema = z.object({
  type: z.string().min(1).max(200),
  payload: jsonObjectSchema,
  idempotencyKey: z.string().min(1).max(1_000).optional(),
  coalesceKey: z.string().min(1).max(1_000).optional(),
  runAt: z.iso.datetime({ offset: true }).optional(),
  maxAttempts: z.number().int().min(1).max(100).optional(),
});

export type EnqueueOptions = Pick<
  z.input<typeof enqueueSchema>,
  'idempotencyKey' | 'coalesceKey' | 'runAt' | 'maxAttempts'
>;

/** How a job type is handled besides its handler. */
export interface HandlerOptions {
  maxAttempts?: number;
  /**
   * Whether jobs of this type may be claimed now (checked before every claim). False defers them:
   * they stay pending and lose no attempt, e.g. while the LLM they need is failing (an open circuit
   * breaker, circuit-breaker.ts).
   */
  isReady?: () => boolean;
}

/** Durable background work: handlers by job type, a polling loop, retries with backoff. */
export interface JobRunner {
  readonly workerId: string;
  /** Handles jobs of `type` from now on (one handler per type). */
  register(type: string, handler: JobHandler, options?: HandlerOptions): void;
  /**
   * Queues a job (any process's runner may run it); an idempotency key already used returns that
   * job, and a coalesce key of a pending job folds the enqueue into it (job-store.ts).
   */
  enqueue(tenantId: string, type: string, payload: JsonObject, options?: EnqueueOptions): Promise<Job>;
  get(tenantId: string, id: string): Promise<Job | null>;
  list(tenantId: string, query: JobListQuery): Promise<{ jobs: Job[]; total: number }>;
  /** Starts the polling loop (idempotent). Nothing is claimed while no handler is registered. */
  start(): void;
  /** Claims and runs at most one due job, waiting for it; resolves whether one ran (never after close). */
  runOnce(): Promise<boolean>;
  /**
   * Stops claiming, aborts the jobs in flight (each is put back to pending, to run again at once on
   * the next start; its attempt counts) and waits for them to settle.
   */
  close(): Promise<void>;
}

/** Creates a job runner over `options.store`. It does nothing until `start()` or `runOnce()`. */
export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { store } = options;
  parseWith(runnerSettingsSchema, options, 'jobs settings');
  const clock = options.clock ?? (() => new Date());
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? 60_000;
  const concurrency = options.concurrency ?? 1;
  const minPollMs = options.minPollMs ?? 250;
  const maxPollMs = options.maxPollMs ?? 5_000;
  const policy: RetryPolicy = { baseDelayMs: 1_000, maxDelayMs: 300_000, ...options.retry };
  const defaultMaxAttempts = options.defaultMaxAttempts ?? 5;
  const reportError = options.onError ?? ((error) => console.error('engram: job runner error', error));
  const handlers = new Map<
    string,
    { handler: JobHandler; maxAttempts: number | undefined; isReady: (() => boolean) | undefined }
  >();
  const running = new Set<Promise<void>>();
  const controllers = new Set<AbortController>();
  let loop: Promise<void> | undefined;
  let closing = false;
  let wake: (() => void) | undefined;
  /** A nudge that came while the loop was not pausing: its next pause ends at once. */
  let nudged = false;

  /** Resolves after `milliseconds`, or earlier when woken (enqueue, register, close). */
  const pause = (milliseconds: number) =>
    new Promise<void>((resolve) => {
      if (nudged) {
        nudged = false;
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, milliseconds);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const nudge = () => {
    if (wake) wake();
    else nudged = true;
    wake = undefined;
  };

  async function execute(job: Job): Promise<void> {
    const lease = leaseOf(job);
    const controller = new AbortController();
    controllers.add(controller);
    const heartbeat = setInterval(
      () => {
        store.heartbeat(lease, leaseMs).catch((error: unknown) => {
          if (error instanceof JobLeaseLostError) controller.abort(error);
          else reportError(error);
        });
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    heartbeat.unref();
    try {
      const entry = handlers.get(job.type);
      if (!entry) throw new Error(`No handler for job type ${job.type}`);
      const confirmLease = async () => {
        controller.signal.throwIfAborted();
        try {
          await store.heartbeat(lease, leaseMs);
        } catch (error) {
          if (error instanceof JobLeaseLostError) controller.abort(error);
          throw error;
        }
      };
      const result = await entry.handler(structuredClone(job.payload), {
        job,
        signal: controller.signal,
        confirmLease,
      });
      await store.complete(lease, result ?? null);
    } catch (error) {
      // Another worker owns the job now: this attempt's outcome is not ours to record.
      if (error instanceof JobLeaseLostError || controller.signal.reason instanceof JobLeaseLostError) return;
      const stopped = closing && controller.signal.aborted;
      const retryable = stopped || isRetryable(error);
      const delay = stopped ? 0 : retryDelayMs(job.attempts, error, policy, options.random);
      const retryAt = retryable ? new Date(clock().getTime() + delay).toISOString() : null;
      // Put back by a shutdown, the job did not fail: its task shows no error (unless out of attempts).
      const reason = stopped && job.attempts < job.maxAttempts ? null : failureOf(error);
      const failed = await store.fail(lease, reason, retryAt).catch((failure: unknown) => {
        reportError(failure);
        return null;
      });
      options.onJobError?.(error, job, failed?.status === 'pending');
    } finally {
      clearInterval(heartbeat);
      controllers.delete(controller);
    }
  }

  async function claimAndRun(wait: boolean): Promise<boolean> {
    if (closing || handlers.size === 0) return false;
    const ready = [...handlers].filter(([, entry]) => entry.isReady?.() ?? true).map(([type]) => type);
    if (ready.length === 0) return false;
    const job = await store.claim(workerId, leaseMs, ready);
    if (!job) return false;
    const run = execute(job).finally(() => running.delete(run));
    running.add(run);
    if (wait) await run;
    return true;
  }

  async function poll(): Promise<void> {
    let idleMs = minPollMs;
    while (!closing) {
      if (running.size >= concurrency) {
        await Promise.race(running);
        continue;
      }
      let ran = false;
      try {
        ran = await claimAndRun(false);
      } catch (error) {
        reportError(error);
      }
      if (ran) {
        idleMs = minPollMs;
        continue;
      }
      await pause(idleMs);
      idleMs = Math.min(maxPollMs, idleMs * 2);
    }
  }

  return {
    workerId,
    register(type, handler, handlerOptions = {}) {
      if (handlers.has(type)) throw new Error(`A handler for job type ${type} is already registered`);
      handlers.set(type, {
        handler,
        maxAttempts: handlerOptions.maxAttempts,
        isReady: handlerOptions.isReady,
      });
      nudge();
    },
    async enqueue(tenantId, type, payload, enqueueOptions = {}) {
      const input = parseWith(enqueueSchema, { type, payload, ...enqueueOptions }, 'job');
      const { job } = await store.enqueue(tenantId, {
        id: newId(clock().getTime()),
        type: input.type,
        payload: input.payload,
        maxAttempts: input.maxAttempts ?? handlers.get(type)?.maxAttempts ?? defaultMaxAttempts,
        ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
        ...(input.coalesceKey === undefined ? {} : { coalesceKey: input.coalesceKey }),
        ...(input.runAt === undefined ? {} : { runAt: new Date(input.runAt).toISOString() }),
      });
      nudge();
      return job;
    },
    get: (tenantId, id) => store.getJob(tenantId, id),
    list: (tenantId, query) => store.listJobs(tenantId, query),
    start() {
      if (closing || loop) return;
      loop = poll();
    },
    runOnce: () => claimAndRun(true),
    async close() {
      closing = true;
      nudge();
      for (const controller of controllers) controller.abort(new Error('The job runner is closing'));
      await loop;
      await Promise.allSettled([...running]);
    },
  };
}
