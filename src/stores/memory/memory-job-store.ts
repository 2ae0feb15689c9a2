import { NotFoundError, StoreError } from '../../core/errors.js';
import {
  coalescedFailure,
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
  /** Per tenant, when it was last served by a claim (a counter): the least recent goes first. */
  const turns = new Map<string, number>();
  let lastTurn = 0;
  /** The pending job of `tenantId` with `coalesceKey`, other than `exceptId`. */
  const pendingWith = (tenantId: string, coalesceKey: string, exceptId?: string) => {
    for (const job of jobs.values()) {
      if (
        job.tenantId === tenantId &&
        job.coalesceKey === coalesceKey &&
        job.status === 'pending' &&
        job.id !== exceptId
      ) {
        return job;
      }
    }
    return undefined;
  };
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

  /** Claim order: the tenant served least recently, then the longest-due job (then the older job). */
  const before = (job: Job, other: Job): boolean => {
    const turn = turns.get(job.tenantId) ?? 0;
    const otherTurn = turns.get(other.tenantId) ?? 0;
    if (turn !== otherTurn) return turn < otherTurn;
    return timeOf(job.availableAt) < timeOf(other.availableAt);
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
      const now = clock().toISOString();
      const folding = input.coalesceKey === undefined ? undefined : pendingWith(tenantId, input.coalesceKey);
      if (folding) {
        Object.assign(folding, { payload: structuredClone(input.payload), updatedAt: now });
        return { job: structuredClone(folding), created: false };
      }
      const key = keyOf(tenantId, input.id);
      if (jobs.has(key)) throw new StoreError(`Job ${input.id} already exists`);
      const job: Job = {
        id: input.id,
        tenantId,
        type: input.type,
        payload: structuredClone(input.payload),
        status: 'pending',
        idempotencyKey: input.idempotencyKey ?? null,
        coalesceKey: input.coalesceKey ?? null,
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
      if (!turns.has(tenantId)) turns.set(tenantId, 0);
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
        if (!next || before(job, next)) next = job;
      }
      if (!next) return null;
      lastTurn += 1;
      turns.set(next.tenantId, lastTurn);
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
        // An earlier attempt's failure is history: a succeeded task shows no error.
        error: null,
        availableAt: null,
        completedAt: now,
      });
    },

    async fail(lease, failure, retryAt) {
      ensureOpen();
      const job = held(lease);
      const now = clock().toISOString();
      const retry = retryAt !== null && job.attempts < job.maxAttempts;
      const into =
        retry && job.coalesceKey !== null ? pendingWith(job.tenantId, job.coalesceKey, job.id) : undefined;
      if (into && retryAt !== null) {
        // Newer work waits in `into`: it carries the retry, no earlier than this job's backoff, and
        // its attempts and failure, so a job failing on every retry still reaches maxAttempts.
        into.availableAt = new Date(Math.max(timeOf(into.availableAt), Date.parse(retryAt))).toISOString();
        into.attempts = Math.max(into.attempts, job.attempts);
        into.error = failure ? { ...failure } : (structuredClone(job.error) ?? into.error);
        return finish(job, now, {
          status: 'failed',
          error: coalescedFailure(into.id),
          availableAt: null,
          completedAt: now,
        });
      }
      return finish(job, now, {
        status: retry ? 'pending' : 'failed',
        error: failure ? { ...failure } : job.error,
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

    async failUnclaimedJobs(dueBefore, failure, limit) {
      ensureOpen();
      const cutoff = Date.parse(dueBefore);
      const now = clock().toISOString();
      const unclaimed = [...jobs.values()]
        .filter(
          (job) => (job.status === 'pending' || job.status === 'running') && timeOf(job.availableAt) < cutoff,
        )
        .sort((left, right) => timeOf(left.availableAt) - timeOf(right.availableAt))
        .slice(0, Math.max(0, limit));
      for (const job of unclaimed) {
        finish(job, now, { status: 'failed', error: { ...failure }, availableAt: null, completedAt: now });
      }
      return unclaimed.length;
    },

    async pruneJobs(finishedBefore, limit) {
      ensureOpen();
      const cutoff = Date.parse(finishedBefore);
      const finished = [...jobs.entries()]
        .filter(([, job]) => job.completedAt !== null && Date.parse(job.completedAt) < cutoff)
        .sort(([, left], [, right]) => timeOf(left.completedAt) - timeOf(right.completedAt))
        .slice(0, Math.max(0, limit));
      for (const [key, job] of finished) {
        jobs.delete(key);
        if (job.idempotencyKey !== null) byIdempotencyKey.delete(keyOf(job.tenantId, job.idempotencyKey));
      }
      const busy = new Set([...jobs.values()].map((job) => job.tenantId));
      for (const tenantId of turns.keys()) if (!busy.has(tenantId)) turns.delete(tenantId);
      return finished.length;
    },
  };
}
