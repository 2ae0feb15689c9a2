import { NotFoundError } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import {
  type Job,
  type JobFailure,
  type JobLease,
  JobLeaseLostError,
  type JobStatus,
  type JobStore,
  leaseExpiredFailure,
} from '../job-store.js';
import type { PostgresDatabase } from './postgres-database.js';

interface JobRow {
  id: string;
  tenant_id: string;
  type: string;
  payload: JsonObject;
  status: JobStatus;
  idempotency_key: string | null;
  attempts: number;
  max_attempts: number;
  available_at: number | null;
  worker_id: string | null;
  result: JsonObject | null;
  error: JobFailure | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  completed_at: number | null;
}

const COLUMNS = `id, tenant_id, type, payload, status, idempotency_key, attempts, max_attempts, available_at,
  worker_id, result, error, created_at, updated_at, started_at, completed_at`;

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const toJob = (row: JobRow): Job => ({
  id: row.id,
  tenantId: row.tenant_id,
  type: row.type,
  payload: row.payload,
  status: row.status,
  idempotencyKey: row.idempotency_key,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  availableAt: isoOrNull(row.available_at),
  workerId: row.worker_id,
  result: row.result,
  error: row.error,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
  startedAt: isoOrNull(row.started_at),
  completedAt: isoOrNull(row.completed_at),
});

// The lease a write must still hold: $1 tenant, $2 id, $3 worker, $4 attempt.
const HELD = `tenant_id = $1 AND id = $2 AND status = 'running' AND worker_id = $3 AND attempts = $4`;

const LIST_MATCH = 'tenant_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR type = $3)';

/**
 * The durable job queue on PostgreSQL, shared by every server on the database. A claim takes the
 * longest-due job with `FOR UPDATE SKIP LOCKED` (claimers never wait on each other, nor get the same
 * attempt); a running job whose lease expired (its server died) is due again and is re-claimed by
 * whichever server asks next. Lease-holder writes are single statements guarded by the lease.
 */
export function createPostgresJobStore(database: PostgresDatabase, clock: () => Date): JobStore {
  /** Why a guarded write matched nothing: the job is absent, or the lease was lost. */
  const lost = async (lease: JobLease) => {
    const [row] = await database.query('SELECT 1 FROM jobs WHERE tenant_id = $1 AND id = $2', [
      lease.tenantId,
      lease.id,
    ]);
    return row ? new JobLeaseLostError(lease) : new NotFoundError('Job', lease.id);
  };

  const guardedUpdate = async (lease: JobLease, assignments: string, values: unknown[]) => {
    const [row] = await database.query<JobRow>(
      `UPDATE jobs SET ${assignments} WHERE ${HELD} RETURNING ${COLUMNS}`,
      [lease.tenantId, lease.id, lease.workerId, lease.attempt, ...values],
    );
    if (!row) throw await lost(lease);
    return toJob(row);
  };

  return {
    async enqueue(tenantId, input) {
      const now = clock().getTime();
      const [row] = await database.query<JobRow>(
        `INSERT INTO jobs (tenant_id, id, type, payload, status, idempotency_key, attempts, max_attempts,
          available_at, created_at, updated_at)
        VALUES ($1, $2, $3, $4, 'pending', $5, 0, $6, $7, $8, $8)
        ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING ${COLUMNS}`,
        [
          tenantId,
          input.id,
          input.type,
          JSON.stringify(input.payload),
          input.idempotencyKey ?? null,
          input.maxAttempts,
          input.runAt === undefined ? now : Date.parse(input.runAt),
          now,
        ],
      );
      if (row) return { job: toJob(row), created: true };
      const [existing] = await database.query<JobRow>(
        `SELECT ${COLUMNS} FROM jobs WHERE tenant_id = $1 AND idempotency_key = $2`,
        [tenantId, input.idempotencyKey],
      );
      if (!existing) throw new NotFoundError('Job', input.idempotencyKey ?? input.id);
      return { job: toJob(existing), created: false };
    },

    claim: (workerId, leaseMs, types) =>
      database.transaction(async (client) => {
        const now = clock().getTime();
        // Jobs whose last allowed attempt died with its worker fail now, visibly, instead of running again.
        const exhausted = await client.query<{ pk: number; attempts: number }>(
          `SELECT pk, attempts FROM jobs
          WHERE available_at <= $1 AND status = 'running' AND attempts >= max_attempts
          FOR UPDATE SKIP LOCKED`,
          [now],
        );
        if (exhausted.length > 0) {
          await client.query(
            `UPDATE jobs SET status = 'failed', error = failure.error::jsonb, available_at = NULL,
              worker_id = NULL, completed_at = $3, updated_at = $3
            FROM unnest($1::bigint[], $2::text[]) AS failure(pk, error) WHERE jobs.pk = failure.pk`,
            [
              exhausted.map((job) => job.pk),
              exhausted.map((job) => JSON.stringify(leaseExpiredFailure(job.attempts))),
              now,
            ],
          );
        }
        const [row] = await client.query<JobRow>(
          `UPDATE jobs SET status = 'running', attempts = attempts + 1, worker_id = $2,
            available_at = $1 + $3::bigint, started_at = $1, updated_at = $1
          WHERE pk = (SELECT pk FROM jobs
            WHERE available_at IS NOT NULL AND available_at <= $1
              AND NOT (status = 'running' AND attempts >= max_attempts)
              AND ($4::text[] IS NULL OR type = ANY($4::text[]))
            ORDER BY available_at, pk LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING ${COLUMNS}`,
          [now, workerId, Math.max(0, Math.round(leaseMs)), types ? [...types] : null],
        );
        return row ? toJob(row) : null;
      }),

    heartbeat: (lease, leaseMs) => {
      const now = clock().getTime();
      return guardedUpdate(lease, 'available_at = $5, updated_at = $6', [now + leaseMs, now]);
    },

    complete: (lease, result) => {
      const now = clock().getTime();
      return guardedUpdate(
        lease,
        `status = 'succeeded', available_at = NULL, worker_id = NULL, result = $5, completed_at = $6,
          updated_at = $6`,
        [result === null ? null : JSON.stringify(result), now],
      );
    },

    fail: (lease, failure, retryAt) => {
      const now = clock().getTime();
      // Retried only with a retry time and attempts left; otherwise failed for good.
      const retry = `$5::bigint IS NOT NULL AND attempts < max_attempts`;
      return guardedUpdate(
        lease,
        `status = CASE WHEN ${retry} THEN 'pending' ELSE 'failed' END,
          available_at = CASE WHEN ${retry} THEN $5::bigint END, worker_id = NULL, error = $6,
          completed_at = CASE WHEN ${retry} THEN NULL ELSE $7::bigint END, updated_at = $7`,
        [
          retryAt === null ? null : Date.parse(retryAt),
          JSON.stringify({ message: failure.message, code: failure.code }),
          now,
        ],
      );
    },

    async getJob(tenantId, id) {
      const [row] = await database.query<JobRow>(
        `SELECT ${COLUMNS} FROM jobs WHERE tenant_id = $1 AND id = $2`,
        [tenantId, id],
      );
      return row ? toJob(row) : null;
    },

    async listJobs(tenantId, query) {
      const match = [tenantId, query.status ?? null, query.type ?? null];
      const [rows, [count]] = await Promise.all([
        database.query<JobRow>(
          `SELECT ${COLUMNS} FROM jobs WHERE ${LIST_MATCH} ORDER BY id DESC LIMIT $4 OFFSET $5`,
          [...match, Math.max(0, query.limit), Math.max(0, query.offset)],
        ),
        database.query<{ total: number }>(
          `SELECT count(*)::bigint AS total FROM jobs WHERE ${LIST_MATCH}`,
          match,
        ),
      ]);
      return { jobs: rows.map(toJob), total: count?.total ?? 0 };
    },
  };
}
