import { NotFoundError, StoreError } from '../../core/errors.js';
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
} from '../job-store.js';
import type { PostgresDatabase, Queryable } from './postgres-database.js';

interface JobRow {
  id: string;
  tenant_id: string;
  type: string;
  payload: JsonObject;
  status: JobStatus;
  idempotency_key: string | null;
  coalesce_key: string | null;
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

const COLUMNS = `id, tenant_id, type, payload, status, idempotency_key, coalesce_key, attempts, max_attempts, available_at,
  worker_id, result, error, created_at, updated_at, started_at, completed_at`;

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const toJob = (row: JobRow): Job => ({
  id: row.id,
  tenantId: row.tenant_id,
  type: row.type,
  payload: row.payload,
  status: row.status,
  idempotencyKey: row.idempotency_key,
  coalesceKey: row.coalesce_key,
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

// A due job of the claim's types (parameters `now`, `types`): pending with its run time passed, or
// running with its lease expired and attempts left.
const due = (now: string, types: string) => `available_at IS NOT NULL AND available_at <= ${now}
  AND NOT (status = 'running' AND attempts >= max_attempts)
  AND (${types}::text[] IS NULL OR type = ANY(${types}::text[]))`;
const DUE = due('$1', '$4');

/** Tenants' heads a claim tries before falling back to any due job (others hold the rest). */
const CLAIM_CANDIDATES = 8;

/**
 * Serializes, per (tenant, coalesce key), an enqueue's fold-or-insert and a retry's fold-or-requeue:
 * without it a retry turning its job pending would collide with a pending job inserted meanwhile.
 */
const lockCoalesceKey = (client: Queryable, tenantId: string, key: string) =>
  client.query('SELECT pg_advisory_xact_lock(hashtextextended($2, hashtextextended($1, 1)))', [
    tenantId,
    key,
  ]);

/** Enqueue rounds when concurrent enqueues race for the same idempotency or coalesce key. */
const ENQUEUE_ROUNDS = 3;

/**
 * Leases the first due job `match` finds ($1 now, $2 worker, $3 lease ms, $4 types), skipping
 * rows other claimers hold, and gives its tenant the newest turn.
 */
async function leaseJob(client: Queryable, match: string, values: unknown[]): Promise<Job | null> {
  const [row] = await client.query<JobRow>(
    `UPDATE jobs SET status = 'running', attempts = attempts + 1, worker_id = $2,
      available_at = $1 + $3::bigint, started_at = $1, updated_at = $1
    WHERE pk = (SELECT pk FROM jobs WHERE ${match} FOR UPDATE SKIP LOCKED)
    RETURNING ${COLUMNS}`,
    values,
  );
  if (!row) return null;
  await client.query(
    `INSERT INTO job_turns (tenant_id, turn) VALUES ($1, nextval('job_turn_seq'))
    ON CONFLICT (tenant_id) DO UPDATE SET turn = excluded.turn`,
    [row.tenant_id],
  );
  return toJob(row);
}

/**
 * The durable job queue on PostgreSQL, shared by every server on the database. A claim takes the
 * longest-due job of the least recently served tenant (`job_turns`) with `FOR UPDATE SKIP LOCKED` (claimers never wait on each other, nor get the same
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
    enqueue: (tenantId, input) =>
      database.transaction(async (client) => {
        const now = clock().getTime();
        await client.query(
          'INSERT INTO job_turns (tenant_id, turn) VALUES ($1, 0) ON CONFLICT (tenant_id) DO NOTHING',
          [tenantId],
        );
        if (input.coalesceKey !== undefined) await lockCoalesceKey(client, tenantId, input.coalesceKey);
        // A concurrent enqueue may take the key first (the insert then adds nothing): look again.
        for (let round = 0; round < ENQUEUE_ROUNDS; round += 1) {
          if (input.idempotencyKey !== undefined) {
            const [existing] = await client.query<JobRow>(
              `SELECT ${COLUMNS} FROM jobs WHERE tenant_id = $1 AND idempotency_key = $2`,
              [tenantId, input.idempotencyKey],
            );
            if (existing) return { job: toJob(existing), created: false };
          }
          if (input.coalesceKey !== undefined) {
            const [folded] = await client.query<JobRow>(
              `UPDATE jobs SET payload = $3, updated_at = $4
              WHERE tenant_id = $1 AND coalesce_key = $2 AND status = 'pending' RETURNING ${COLUMNS}`,
              [tenantId, input.coalesceKey, JSON.stringify(input.payload), now],
            );
            if (folded) return { job: toJob(folded), created: false };
          }
          const [row] = await client.query<JobRow>(
            `INSERT INTO jobs (tenant_id, id, type, payload, status, idempotency_key, coalesce_key, attempts,
              max_attempts, available_at, created_at, updated_at)
            VALUES ($1, $2, $3, $4, 'pending', $5, $6, 0, $7, $8, $9, $9)
            ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
            [
              tenantId,
              input.id,
              input.type,
              JSON.stringify(input.payload),
              input.idempotencyKey ?? null,
              input.coalesceKey ?? null,
              input.maxAttempts,
              input.runAt === undefined ? now : Date.parse(input.runAt),
              now,
            ],
          );
          if (row) return { job: toJob(row), created: true };
          if (input.idempotencyKey === undefined && input.coalesceKey === undefined) break;
        }
        // The id itself is taken (ids are ULIDs: a bug upstream), or the key race outlasted the rounds.
        throw new StoreError(`Could not enqueue job ${input.id}: its id or key conflicts with another job`);
      }),

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
        const typeList = types ? [...types] : null;
        // Each tenant's longest-due job, least recently served tenant first; read without locks,
        // then leased one by one with SKIP LOCKED (a job another claimer holds is passed over).
        const heads = await client.query<{ pk: number }>(
          `SELECT head.pk FROM job_turns AS turns CROSS JOIN LATERAL (
            SELECT pk, available_at FROM jobs
            WHERE jobs.tenant_id = turns.tenant_id AND ${due('$1', '$2')}
            ORDER BY available_at, pk LIMIT 1) AS head
          ORDER BY turns.turn, head.available_at, head.pk LIMIT ${CLAIM_CANDIDATES}`,
          [now, typeList],
        );
        const lease = [now, workerId, Math.max(0, Math.round(leaseMs)), typeList];
        for (const head of heads) {
          const job = await leaseJob(client, `pk = $5 AND ${DUE}`, [...lease, head.pk]);
          if (job) return job;
        }
        // Every head was taken by another claimer (or a tenant lost its turn row): any due job.
        return leaseJob(client, `${DUE} ORDER BY available_at, pk LIMIT 1`, lease);
      }),

    heartbeat: (lease, leaseMs) => {
      const now = clock().getTime();
      return guardedUpdate(lease, 'available_at = $5, updated_at = $6', [now + leaseMs, now]);
    },

    complete: (lease, result) => {
      const now = clock().getTime();
      return guardedUpdate(
        lease,
        `status = 'succeeded', available_at = NULL, worker_id = NULL, result = $5, error = NULL,
          completed_at = $6, updated_at = $6`,
        [result === null ? null : JSON.stringify(result), now],
      );
    },

    fail: (lease, failure, retryAt) =>
      database.transaction(async (client) => {
        const now = clock().getTime();
        const [row] = await client.query<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE ${HELD} FOR UPDATE`, [
          lease.tenantId,
          lease.id,
          lease.workerId,
          lease.attempt,
        ]);
        if (!row) throw await lost(lease);
        const retry = retryAt !== null && row.attempts < row.max_attempts;
        // A stopped attempt (no failure) keeps the job's last error.
        const last = failure ?? row.error;
        const lastError = last === null ? null : JSON.stringify({ message: last.message, code: last.code });
        const finish = (error: string | null, availableAt: number | null) =>
          client.query<JobRow>(
            `UPDATE jobs SET status = $5, available_at = $6, worker_id = NULL, error = $7,
              completed_at = $8, updated_at = $9 WHERE ${HELD} RETURNING ${COLUMNS}`,
            [
              lease.tenantId,
              lease.id,
              lease.workerId,
              lease.attempt,
              availableAt === null ? 'failed' : 'pending',
              availableAt,
              error,
              availableAt === null ? now : null,
              now,
            ],
          );
        if (!retry || retryAt === null) return toJob((await finish(lastError, null))[0] as JobRow);
        if (row.coalesce_key !== null) {
          await lockCoalesceKey(client, lease.tenantId, row.coalesce_key);
          // Newer work waits in a pending job of the key: it carries the retry, no earlier than the
          // backoff, and its attempts and failure, so a job failing on every retry reaches max_attempts.
          const [into] = await client.query<{ id: string }>(
            `UPDATE jobs SET available_at = greatest(available_at, $3), attempts = greatest(attempts, $4),
              error = coalesce($5::jsonb, error) WHERE tenant_id = $1 AND coalesce_key = $2 AND status = 'pending' RETURNING id`,
            [lease.tenantId, row.coalesce_key, Date.parse(retryAt), row.attempts, lastError],
          );
          if (into)
            return toJob((await finish(JSON.stringify(coalescedFailure(into.id)), null))[0] as JobRow);
        }
        return toJob((await finish(lastError, Date.parse(retryAt)))[0] as JobRow);
      }),

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

    async failUnclaimedJobs(dueBefore, failure, limit) {
      const now = clock().getTime();
      const failed = await database.query<{ pk: string }>(
        `UPDATE jobs SET status = 'failed', error = $3, available_at = NULL, worker_id = NULL,
          completed_at = $4, updated_at = $4
        WHERE pk IN (SELECT pk FROM jobs WHERE available_at < $1 AND status IN ('pending', 'running')
          ORDER BY available_at LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING pk`,
        [
          Date.parse(dueBefore),
          Math.max(0, Math.floor(limit)),
          JSON.stringify({ message: failure.message, code: failure.code }),
          now,
        ],
      );
      return failed.length;
    },

    pruneJobs: (finishedBefore, limit) =>
      database.transaction(async (client) => {
        const pruned = await client.query<{ tenant_id: string }>(
          `DELETE FROM jobs WHERE pk IN (SELECT pk FROM jobs WHERE completed_at < $1
            ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING tenant_id`,
          [Date.parse(finishedBefore), Math.max(0, Math.floor(limit))],
        );
        if (pruned.length > 0) {
          // Tenants left without any job leave the claim's per-tenant probe.
          await client.query(
            `DELETE FROM job_turns WHERE tenant_id = ANY($1::text[])
              AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.tenant_id = job_turns.tenant_id)`,
            [[...new Set(pruned.map((row) => row.tenant_id))]],
          );
        }
        return pruned.length;
      }),
  };
}
