import { NotFoundError, StoreError } from '../../core/errors.js';
import {
  type Job,
  type JobLease,
  JobLeaseLostError,
  type JobStore,
  leaseExpiredFailure,
} from '../job-store.js';

const keyOf = (tenantId: string, id: string) => `${tenantId}\u0000${id}`;
const timeOf = (iso: string | null) => (iso === null ? Number.POSITIVE_INFINITY : Date.parse(iso));

/**
 * The in-memory job queue of the reference driver. Each method runs to completion inside its
 * promise, so a claim is atomic; `claim` and `list` scan every job (fine for tests and demos).
 */
export function createMemoryJobStore(clock: () => Date, isClosed: () => boolean): JobStore {
  const jobs = new Map<string, Job>();
  const byIdempotencyKey = new Map<string, string>();
  const ensureOpen = () => {
    if (isClosed()) throw new StoreError('The memory store is closed');
  };

  /** The running job `lease` names, or JobLeaseLostError. */
  const held = (lease: JobLease): Job => {
    const job = jobs.get(keyOf(lease.tenantId, lease.id));
    if (!job) throw new NotFoundError('Job', lease.id);
    if (job.status !== 'running' || job.workerId !== lease.workerId || job.attempts !== lease.attempt) {
      throw new JobLeaseLostError(lease);
    }
    return job;
  };

  const finish = (job: Job, now: string, changes: Partial<Job>): Job => {
    Object.assign(job, { workerId: null, updatedAt: now, ...changes });
    return structuredClone(job);
  };

  return {
    async enqueue(tenantId, input) {
      ensureOpen();
      const idempotencyId =
        input.idempotencyKey === undefined ? undefined : keyOf(tenantId, input.idempotencyKey);
      const existingId = idempotencyId === undefined ? undefined : byIdempotencyKey.get(idempotencyId);
      const existing = existingId === undefined ? undefined : jobs.get(keyOf(tenantId, existingId));
      if (existing) return { job: structuredClone(existing), created: false };
      const key = keyOf(tenantId, input.id);
      if (jobs.has(key)) throw new StoreError(`Job ${input.id} already exists`);
      const now = clock().toISOString();
      const job: Job = {
        id: input.id,
        tenantId,
        type: input.type,
        payload: structuredClone(input.payload),
        status: 'pending',
        idempotencyKey: input.idempotencyKey ?? null,
        attempts: 0,
        maxAttempts: input.maxAttempts,
        availableAt: new Date(input.runAt ?? now).toISOString(),
        workerId: null,
        result: null,
        error: null,
        createdAt: now,
        updatedAt: now,
        startedAt: null,
        completedAt: null,
      };
      jobs.set(key, job);
      if (idempotencyId !== undefined) byIdempotencyKey.set(idempotencyId, input.id);
      return { job: structuredClone(job), created: true };
    },

    async claim(workerId, leaseMs, types) {
      ensureOpen();
      const now = clock();
      const nowMs = now.getTime();
      const iso = now.toISOString();
      let next: Job | undefined;
      for (const job of jobs.values()) {
        const due = timeOf(job.availableAt) <= nowMs;
        if (!due || (job.status !== 'pending' && job.status !== 'running')) continue;
        if (job.status === 'running' && job.attempts >= job.maxAttempts) {
          finish(job, iso, {
            status: 'failed',
            availableAt: null,
            completedAt: iso,
            error: leaseExpiredFailure(job.attempts),
          });
          continue;
        }
        if (types && !types.includes(job.type)) continue;
        if (!next || timeOf(job.availableAt) < timeOf(next.availableAt)) next = job;
      }
      if (!next) return null;
      Object.assign(next, {
        status: 'running',
        attempts: next.attempts + 1,
        workerId,
        availableAt: new Date(nowMs + leaseMs).toISOString(),
        startedAt: iso,
        updatedAt: iso,
      });
      return structuredClone(next);
    },

    async heartbeat(lease, leaseMs) {
      ensureOpen();
      const job = held(lease);
      const now = clock();
      job.availableAt = new Date(now.getTime() + leaseMs).toISOString();
      job.updatedAt = now.toISOString();
      return structuredClone(job);
    },

    async complete(lease, result) {
      ensureOpen();
      const job = held(lease);
      const now = clock().toISOString();
      return finish(job, now, {
        status: 'succeeded',
        result: structuredClone(result),
        availableAt: null,
        completedAt: now,
      });
    },

    async fail(lease, failure, retryAt) {
      ensureOpen();
      const job = held(lease);
      const now = clock().toISOString();
      const retry = retryAt !== null && job.attempts < job.maxAttempts;
      return finish(job, now, {
        status: retry ? 'pending' : 'failed',
        error: { ...failure },
        availableAt: retry ? new Date(retryAt).toISOString() : null,
        completedAt: retry ? null : now,
      });
    },

    async getJob(tenantId, id) {
      ensureOpen();
      const job = jobs.get(keyOf(tenantId, id));
      return job ? structuredClone(job) : null;
    },

    async listJobs(tenantId, query) {
      ensureOpen();
      const matches = [...jobs.values()]
        .filter(
          (job) =>
            job.tenantId === tenantId &&
            (query.status === undefined || job.status === query.status) &&
            (query.type === undefined || job.type === query.type),
        )
        .sort((left, right) => (left.id < right.id ? 1 : left.id > right.id ? -1 : 0));
      const offset = Math.max(0, query.offset);
      const page = matches.slice(offset, offset + Math.max(0, query.limit));
      return { jobs: page.map((job) => structuredClone(job)), total: matches.length };
    },
  };
}
