import { EngramError } from '../core/errors.js';
import type { JsonObject } from '../core/schemas/json.js';

/** `pending` (waiting for its run time), `running` (leased by a worker), then `succeeded` or `failed`. */
export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed';

/** A durable background job, as the store holds it. Timestamps are UTC ISO text. */
export interface Job {
  /** Assigned by the engine (a ULID), unique per tenant. */
  id: string;
  tenantId: string;
  type: string;
  payload: JsonObject;
  status: JobStatus;
  idempotencyKey: string | null;
  /** Names the work a job stands for: at most one pending job per tenant has it (see JobStore). */
  coalesceKey: string | null;
  /** Claims so far; a claim whose lease expired (a crashed worker) counts too. */
  attempts: number;
  maxAttempts: number;
  /** When the job can next be claimed: its run time while pending, its lease expiry while running. */
  availableAt: string | null;
  /** The worker holding the lease while running. */
  workerId: string | null;
  result: JsonObject | null;
  /** The last failure, kept while the job is retried and when it finally fails; a success clears it. */
  error: JobFailure | null;
  createdAt: string;
  updatedAt: string;
  /** Start of the latest attempt. */
  startedAt: string | null;
  /** When the job succeeded or finally failed. */
  completedAt: string | null;
}

/** Why an attempt failed, as shown to the caller (`error_message` in AMS tasks). */
export interface JobFailure {
  message: string;
  code: string | null;
}

export interface NewJob {
  id: string;
  type: string;
  payload: JsonObject;
  /** A second enqueue with the same key (per tenant) returns the first job instead of a new one. */
  idempotencyKey?: string;
  /**
   * While a pending job of the tenant has this key, the enqueue folds into it instead of adding one
   * (e.g. one summary job per session, however many writes ask for it).
   */
  coalesceKey?: string;
  /** Not claimable before this time (ISO). Default: now. */
  runAt?: string;
  maxAttempts: number;
}

/**
 * Who holds a running job: the worker and the attempt it claimed. The attempt number fences a
 * worker whose lease expired: once another worker has re-claimed the job, the old holder's
 * heartbeat, complete and fail reject with JobLeaseLostError.
 */
export interface JobLease {
  tenantId: string;
  id: string;
  workerId: string;
  attempt: number;
}

export interface JobListQuery {
  status?: JobStatus;
  type?: string;
  limit: number;
  offset: number;
}

/**
 * The durable job queue of a backend (`store.jobs`). Rules every driver follows:
 * - `enqueue` with an idempotency key already used in the tenant returns that job, unchanged, with
 *   `created: false` (whatever its status, type or payload).
 * - Coalescing: `enqueue` with a `coalesceKey` while a *pending* job of the tenant has that key
 *   (after the idempotency check) returns that job with `created: false`, its payload replaced by
 *   the new one (the newest work) and its run time kept (a job waiting out a retry backoff is not
 *   pulled forward). A running job does not absorb enqueues: new work waits in one new pending job.
 *   So a tenant has at most one pending job per coalesce key.
 * - `claim` is atomic across connections and processes: two claimers never get the same attempt.
 *   It is fair across tenants: among tenants with a due job (pending with runAt <= now, or running
 *   with an expired lease: the crash-recovery path) it serves the one served least recently (a
 *   tenant never served first), and takes that tenant's job that has been due longest; it sets it
 *   running, counts the attempt and leases it for `leaseMs`. So one tenant's backlog delays another
 *   tenant's job by at most one claim per tenant with due work. A running job whose lease expired
 *   after its last allowed attempt is marked failed instead.
 * - `fail` with a `retryAt` puts the job back to pending until then, unless it has used all its
 *   attempts; without one (or when out of attempts) the job is failed for good. When a pending job
 *   with the same coalesce key arrived meanwhile, the retry is folded into that one instead: this
 *   job fails (code `job_coalesced`, naming the other) and the other runs no earlier than `retryAt`,
 *   taking over its attempt count (the larger of the two) and its failure as `error`: work that
 *   fails on every retry still runs out of attempts however often new work folds in. A null
 *   `failure` (the worker stopped the attempt) leaves the last error as it was, on either job.
 * - `pruneJobs` deletes up to `limit` finished (succeeded or failed) jobs completed before the
 *   given time, in every tenant, oldest first; it resolves how many went. An idempotency key of a
 *   pruned job is free again.
 * - `failUnclaimedJobs` fails (with `failure`) up to `limit` jobs, in every tenant, due since before
 *   the given time and still not claimed: pending with their run time before it, or running with
 *   a lease that expired before it (no live process handles their type). Longest due first;
 *   resolves how many. They are finished then (`completedAt` now), so pruning takes them later.
 * - Tenants never see each other's jobs; `list` orders newest first (by id) with a true `total`.
 * - Timestamps come from the store's clock. After `close()` every call rejects with StoreError.
 */
export interface JobStore {
  enqueue(tenantId: string, job: NewJob): Promise<{ job: Job; created: boolean }>;
  /** The next due job of one of `types` (any type when absent), now leased to `workerId`; null if none. */
  claim(workerId: string, leaseMs: number, types?: readonly string[]): Promise<Job | null>;
  /** Extends the lease to now + `leaseMs`. */
  heartbeat(lease: JobLease, leaseMs: number): Promise<Job>;
  complete(lease: JobLease, result: JsonObject | null): Promise<Job>;
  /** `failure` null: the attempt was stopped, not failed (a shutdown); the job's last error stays. */
  fail(lease: JobLease, failure: JobFailure | null, retryAt: string | null): Promise<Job>;
  getJob(tenantId: string, id: string): Promise<Job | null>;
  listJobs(tenantId: string, query: JobListQuery): Promise<{ jobs: Job[]; total: number }>;
  /** Deletes finished jobs completed before `finishedBefore` (ISO), at most `limit`; resolves how many. */
  pruneJobs(finishedBefore: string, limit: number): Promise<number>;
  /** Fails jobs due since before `dueBefore` (ISO) that nobody claimed, at most `limit`; resolves how many. */
  failUnclaimedJobs(dueBefore: string, failure: JobFailure, limit: number): Promise<number>;
}

/** What a retried job reports when a newer pending job of its coalesce key took its work over. */
export const coalescedFailure = (into: string): JobFailure => ({
  code: 'job_coalesced',
  message: `Retry folded into pending job ${into}, which has the same coalesce key`,
});

/** The worker no longer holds the job: its lease expired and the job was re-claimed or finished. */
export class JobLeaseLostError extends EngramError {
  constructor(lease: JobLease) {
    super(
      'job_lease_lost',
      'conflict',
      `Worker ${lease.workerId} no longer holds attempt ${lease.attempt} of job ${lease.id}`,
      { details: { ...lease } },
    );
    this.name = 'JobLeaseLostError';
  }
}

/** The message a job gets when its last allowed attempt's lease expired (its worker died). */
export const leaseExpiredFailure = (attempts: number): JobFailure => ({
  code: 'job_lease_expired',
  message: `The worker running attempt ${attempts} stopped without finishing (lease expired); no attempts left`,
});

/** The lease of a claimed job, for heartbeat/complete/fail. */
export const leaseOf = (job: Job): JobLease => ({
  tenantId: job.tenantId,
  id: job.id,
  workerId: job.workerId ?? '',
  attempt: job.attempts,
});

/** What a job reports when no worker claimed it for `days` days (`failUnclaimedJobs`). */
export const unclaimedFailure = (days: number): JobFailure => ({
  code: 'job_unclaimed',
  message: `No worker claimed this job for ${days} days: no running process handles its type (for example extraction while no LLM is configured)`,
});
