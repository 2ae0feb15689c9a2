import type { Database } from 'better-sqlite3';
import { NotFoundError } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import {
  coalescedFailure,
  type Job,
  type JobFailure,
  type JobLease,
  JobLeaseLostError,
  type JobStatus,
  type JobStore,
  leaseExpiredFailure,
  type NewJob,
} from '../job-store.js';

interface JobRow {
  id: string;
  tenant_id: string;
  type: string;
  payload: string;
  status: JobStatus;
  idempotency_key: string | null;
  coalesce_key: string | null;
  attempts: number;
  max_attempts: number;
  available_at: number | null;
  worker_id: string | null;
  result: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  completed_at: number | null;
}

const COLUMNS = `id, tenant_id, type, payload, status, idempotency_key, coalesce_key, attempts, max_attempts, available_at,
  worker_id, result, error, created_at, updated_at, started_at, completed_at`;

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const toJob = (row: JobRow): Job => ({
  id: row.id,
  tenantId: row.tenant_id,
  type: row.type,
  payload: JSON.parse(row.payload) as JsonObject,
  status: row.status,
  idempotencyKey: row.idempotency_key,
  coalesceKey: row.coalesce_key,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  availableAt: isoOrNull(row.available_at),
  workerId: row.worker_id,
  result: row.result === null ? null : (JSON.parse(row.result) as JsonObject),
  error: row.error === null ? null : (JSON.parse(row.error) as JobFailure),
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
  startedAt: isoOrNull(row.started_at),
  completedAt: isoOrNull(row.completed_at),
});

// The list filters: NULL parameters mean "any".
const LIST_MATCH =
  'tenant_id = :tenant AND (:status IS NULL OR status = :status) AND (:type IS NULL OR type = :type)';

/**
 * Jobs in the `jobs` table (migration 7). Every write is a `BEGIN IMMEDIATE` transaction, so a claim
 * (find the longest-due job, lease it) is atomic across connections and processes sharing the file.
 */
export function createSqliteJobStore(
  database: Database,
  clock: () => Date,
  guarded: <T>(work: () => T) => Promise<T>,
): JobStore {
  const select = database.prepare<[string, string], JobRow>(
    `SELECT ${COLUMNS} FROM jobs WHERE tenant_id = ? AND id = ?`,
  );
  const selectByKey = database.prepare<[string, string], JobRow>(
    `SELECT ${COLUMNS} FROM jobs WHERE tenant_id = ? AND idempotency_key = ?`,
  );
  const insert = database.prepare<Record<string, unknown>, JobRow>(
    `INSERT INTO jobs (tenant_id, id, type, payload, status, idempotency_key, coalesce_key, attempts,
       max_attempts, available_at, created_at, updated_at)
     VALUES (:tenant, :id, :type, :payload, 'pending', :key, :coalesce, 0, :max_attempts, :run_at, :now, :now)
     RETURNING ${COLUMNS}`,
  );
  const pendingWith = database.prepare<{ tenant: string; coalesce: string; except: string }, JobRow>(
    `SELECT ${COLUMNS} FROM jobs INDEXED BY jobs_pending_by_coalesce_key
     WHERE tenant_id = :tenant AND coalesce_key = :coalesce AND status = 'pending' AND id != :except LIMIT 1`,
  );
  const fold = database.prepare<{ tenant: string; id: string; payload: string; now: number }, JobRow>(
    `UPDATE jobs SET payload = :payload, updated_at = :now WHERE tenant_id = :tenant AND id = :id
     RETURNING ${COLUMNS}`,
  );
  const foldInto = database.prepare<{
    tenant: string;
    id: string;
    at: number;
    attempts: number;
    error: string | null;
  }>(
    `UPDATE jobs SET available_at = max(available_at, :at), attempts = max(attempts, :attempts),
       error = coalesce(:error, error) WHERE tenant_id = :tenant AND id = :id`,
  );
  const addTenant = database.prepare<[string]>(
    'INSERT INTO job_turns (tenant_id, turn) VALUES (?, 0) ON CONFLICT (tenant_id) DO NOTHING',
  );
  // A due job (of `types`): pending with its run time passed, or running with its lease expired.
  const dueMatch = `available_at IS NOT NULL AND available_at <= :now
       AND (:types IS NULL OR type IN (SELECT value FROM json_each(:types)))`;
  // Each tenant's longest-due job (one index probe per tenant), then the least recently served
  // tenant's; equal turns (tenants never served) by how long the job has been due.
  const nextDue = database.prepare<{ now: number; types: string | null }, { pk: number; tenant_id: string }>(
    `SELECT jobs.pk, jobs.tenant_id FROM (
       SELECT turn, (SELECT pk FROM jobs INDEXED BY jobs_due_by_tenant
                     WHERE jobs.tenant_id = turns.tenant_id AND ${dueMatch}
                     ORDER BY available_at, pk LIMIT 1) AS head
       FROM job_turns AS turns) AS heads
     JOIN jobs ON jobs.pk = heads.head
     ORDER BY heads.turn, jobs.available_at, jobs.pk LIMIT 1`,
  );
  const served = database.prepare<[string]>(
    'UPDATE job_turns SET turn = (SELECT coalesce(max(turn), 0) + 1 FROM job_turns) WHERE tenant_id = ?',
  );
  const finishedBefore = database.prepare<{ before: number; limit: number }, { pk: number }>(
    `SELECT pk FROM jobs INDEXED BY jobs_finished WHERE completed_at < :before ORDER BY completed_at LIMIT :limit`,
  );
  const deleteByPk = database.prepare<[number]>('DELETE FROM jobs WHERE pk = ?');
  const dueBefore = database.prepare<{ before: number; limit: number }, { pk: number }>(
    `SELECT pk FROM jobs INDEXED BY jobs_due WHERE available_at IS NOT NULL AND available_at < :before
       AND status IN ('pending', 'running') ORDER BY available_at LIMIT :limit`,
  );
  // Tenants left without any job leave the claim's per-tenant probe.
  const dropIdleTurns = database.prepare(
    'DELETE FROM job_turns WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.tenant_id = job_turns.tenant_id)',
  );
  const expireExhausted = database.prepare<{ now: number }, { pk: number; attempts: number }>(
    `SELECT pk, attempts FROM jobs INDEXED BY jobs_leases
     WHERE status = 'running' AND available_at <= :now AND attempts >= max_attempts`,
  );
  const failByPk = database.prepare<[string, number, number, number]>(
    `UPDATE jobs SET status = 'failed', error = ?, available_at = NULL, worker_id = NULL,
       completed_at = ?, updated_at = ? WHERE pk = ?`,
  );
  const lease = database.prepare<Record<string, unknown>, JobRow>(
    `UPDATE jobs SET status = 'running', attempts = attempts + 1, worker_id = :worker,
       available_at = :lease_until, started_at = :now, updated_at = :now
     WHERE pk = :pk RETURNING ${COLUMNS}`,
  );
  const update = database.prepare<Record<string, unknown>, JobRow>(
    `UPDATE jobs SET status = :status, available_at = :available_at, worker_id = :worker, result = :result,
       error = :error, completed_at = :completed_at, updated_at = :now
     WHERE tenant_id = :tenant AND id = :id RETURNING ${COLUMNS}`,
  );
  const page = database.prepare<Record<string, unknown>, JobRow>(
    `SELECT ${COLUMNS} FROM jobs WHERE ${LIST_MATCH} ORDER BY id DESC LIMIT :limit OFFSET :offset`,
  );
  const count = database.prepare<Record<string, unknown>, { total: number }>(
    `SELECT count(*) AS total FROM jobs WHERE ${LIST_MATCH}`,
  );

  const enqueue = database.transaction((tenantId: string, input: NewJob) => {
    if (input.idempotencyKey !== undefined) {
      const existing = selectByKey.get(tenantId, input.idempotencyKey);
      if (existing) return { job: toJob(existing), created: false };
    }
    const now = clock().getTime();
    if (input.coalesceKey !== undefined) {
      const pending = pendingWith.get({ tenant: tenantId, coalesce: input.coalesceKey, except: '' });
      if (pending) {
        const folded = fold.get({
          tenant: tenantId,
          id: pending.id,
          payload: JSON.stringify(input.payload),
          now,
        });
        return { job: toJob(folded as JobRow), created: false };
      }
    }
    addTenant.run(tenantId);
    const row = insert.get({
      tenant: tenantId,
      id: input.id,
      type: input.type,
      payload: JSON.stringify(input.payload),
      key: input.idempotencyKey ?? null,
      coalesce: input.coalesceKey ?? null,
      max_attempts: input.maxAttempts,
      run_at: input.runAt === undefined ? now : Date.parse(input.runAt),
      now,
    });
    return { job: toJob(row as JobRow), created: true };
  });

  const claim = database.transaction((workerId: string, leaseMs: number, types?: readonly string[]) => {
    const now = clock().getTime();
    // Jobs whose last allowed attempt died with its worker fail now, visibly, instead of running again.
    for (const exhausted of expireExhausted.all({ now })) {
      failByPk.run(JSON.stringify(leaseExpiredFailure(exhausted.attempts)), now, now, exhausted.pk);
    }
    const due = { now, types: types ? JSON.stringify(types) : null };
    const next = nextDue.get(due);
    if (!next) return null;
    served.run(next.tenant_id);
    const row = lease.get({ pk: next.pk, worker: workerId, lease_until: now + leaseMs, now });
    return toJob(row as JobRow);
  });

  const prune = database.transaction((before: number, limit: number) => {
    const rows = finishedBefore.all({ before, limit });
    for (const row of rows) deleteByPk.run(row.pk);
    if (rows.length > 0) dropIdleTurns.run();
    return rows.length;
  });

  const failUnclaimed = database.transaction((before: number, failure: JobFailure, limit: number) => {
    const now = clock().getTime();
    const rows = dueBefore.all({ before, limit });
    const error = JSON.stringify({ message: failure.message, code: failure.code });
    for (const row of rows) failByPk.run(error, now, now, row.pk);
    return rows.length;
  });

  /** The running row `held` names, or JobLeaseLostError. */
  const held = (reference: JobLease): JobRow => {
    const row = select.get(reference.tenantId, reference.id);
    if (!row) throw new NotFoundError('Job', reference.id);
    if (
      row.status !== 'running' ||
      row.worker_id !== reference.workerId ||
      row.attempts !== reference.attempt
    ) {
      throw new JobLeaseLostError(reference);
    }
    return row;
  };

  const change = database.transaction(
    (reference: JobLease, next: (row: JobRow, now: number) => Record<string, unknown>) => {
      const row = held(reference);
      const now = clock().getTime();
      const changed = update.get({
        status: row.status,
        available_at: row.available_at,
        worker: row.worker_id,
        result: row.result,
        error: row.error,
        completed_at: row.completed_at,
        ...next(row, now),
        tenant: reference.tenantId,
        id: reference.id,
        now,
      });
      return toJob(changed as JobRow);
    },
  );

  return {
    enqueue: (tenantId, input) => guarded(() => enqueue.immediate(tenantId, input)),
    claim: (workerId, leaseMs, types) => guarded(() => claim.immediate(workerId, leaseMs, types)),
    heartbeat: (reference, leaseMs) =>
      guarded(() => change.immediate(reference, (_row, now) => ({ available_at: now + leaseMs }))),
    complete: (reference, result) =>
      guarded(() =>
        change.immediate(reference, (_row, now) => ({
          status: 'succeeded',
          available_at: null,
          worker: null,
          result: result === null ? null : JSON.stringify(result),
          // An earlier attempt's failure is history: a succeeded task shows no error (AMS error_message).
          error: null,
          completed_at: now,
        })),
      ),
    fail: (reference, failure, retryAt) =>
      guarded(() =>
        change.immediate(reference, (row, now) => {
          const retry = retryAt !== null && row.attempts < row.max_attempts;
          // A stopped attempt (no failure) keeps the job's last error.
          const lastError = failure
            ? JSON.stringify({ message: failure.message, code: failure.code })
            : row.error;
          const into =
            retry && row.coalesce_key !== null
              ? pendingWith.get({ tenant: row.tenant_id, coalesce: row.coalesce_key, except: row.id })
              : undefined;
          if (into && retryAt !== null) {
            // Newer work waits in `into`: it carries the retry, no earlier than this job's backoff, and
            // its attempts and failure, so a job failing on every retry still reaches max_attempts.
            foldInto.run({
              tenant: row.tenant_id,
              id: into.id,
              at: Date.parse(retryAt),
              attempts: row.attempts,
              error: lastError,
            });
            return {
              status: 'failed',
              available_at: null,
              worker: null,
              error: JSON.stringify(coalescedFailure(into.id)),
              completed_at: now,
            };
          }
          return {
            status: retry ? 'pending' : 'failed',
            available_at: retry ? Date.parse(retryAt) : null,
            worker: null,
            error: lastError,
            completed_at: retry ? null : now,
          };
        }),
      ),
    getJob: (tenantId, id) =>
      guarded(() => {
        const row = select.get(tenantId, id);
        return row ? toJob(row) : null;
      }),
    listJobs: (tenantId, query) =>
      guarded(() => {
        const match = { tenant: tenantId, status: query.status ?? null, type: query.type ?? null };
        const rows = page.all({
          ...match,
          limit: Math.max(0, query.limit),
          offset: Math.max(0, query.offset),
        });
        return { jobs: rows.map(toJob), total: count.get(match)?.total ?? 0 };
      }),
    failUnclaimedJobs: (dueBeforeIso, failure, limit) =>
      guarded(() => failUnclaimed.immediate(Date.parse(dueBeforeIso), failure, Math.max(0, limit))),
    pruneJobs: (finishedBeforeIso, limit) =>
      guarded(() => prune.immediate(Date.parse(finishedBeforeIso), Math.max(0, limit))),
  };
}
