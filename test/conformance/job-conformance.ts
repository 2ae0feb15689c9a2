import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError, StoreError } from '../../src/core/errors.js';
import type { EngramStore } from '../../src/stores/engram-store.js';
import { type Job, JobLeaseLostError, leaseOf } from '../../src/stores/job-store.js';
import { claimed, createFakeClock, type FakeClock, jobMaker } from './fixtures.js';

const LEASE_MS = 10_000;

const newJob = jobMaker('job');

/**
 * The behaviour every `JobStore` driver must show (the `jobs` of an `EngramStore`). `connectAgain`,
 * for a shared backend, opens a second connection to the last factory-made store's backend with
 * the same clock, for the concurrency test.
 */
export function describeJobStoreConformance(
  name: string,
  factory: (context: { clock: () => Date }) => Promise<EngramStore>,
  connectAgain?: (context: { clock: () => Date }) => Promise<EngramStore>,
): void {
  describe(`JobStore conformance: ${name}`, () => {
    let store: EngramStore;
    let clock: FakeClock;
    beforeEach(async () => {
      clock = createFakeClock();
      store = await factory({ clock: clock.now });
    });
    afterEach(async () => {
      await store.close();
    });

    it('enqueues a pending job due now, and gets it back by tenant and id only', async () => {
      const { job, created } = await store.jobs.enqueue('t1', newJob({ payload: { text: 'hello' } }));
      expect(created).toBe(true);
      expect(job).toMatchObject({
        tenantId: 't1',
        type: 'extract',
        payload: { text: 'hello' },
        status: 'pending',
        attempts: 0,
        maxAttempts: 3,
        availableAt: clock.iso(),
        workerId: null,
        result: null,
        error: null,
        createdAt: clock.iso(),
        startedAt: null,
        completedAt: null,
      });
      expect(await store.jobs.getJob('t1', job.id)).toEqual(job);
      expect(await store.jobs.getJob('t2', job.id)).toBeNull();
      expect(await store.jobs.getJob('t1', 'missing')).toBeNull();
    });

    it('returns the first job for a repeated idempotency key, per tenant', async () => {
      const first = await store.jobs.enqueue('t1', newJob({ idempotencyKey: 'session-1:turn-4' }));
      const again = await store.jobs.enqueue(
        't1',
        newJob({ idempotencyKey: 'session-1:turn-4', payload: { other: true } }),
      );
      expect(again).toEqual({ job: first.job, created: false });
      const otherTenant = await store.jobs.enqueue('t2', newJob({ idempotencyKey: 'session-1:turn-4' }));
      expect(otherTenant.created).toBe(true);
      // Still the same job after it ran: a key is never reused for new work.
      const running = claimed(await store.jobs.claim('w', LEASE_MS));
      await store.jobs.complete(leaseOf(running), { ok: true });
      const afterwards = await store.jobs.enqueue('t1', newJob({ idempotencyKey: 'session-1:turn-4' }));
      expect(afterwards.created).toBe(false);
      expect(afterwards.job.status).toBe('succeeded');
    });

    it('claims the longest-due job of the requested types, never one not yet due', async () => {
      const later = await store.jobs.enqueue('t', newJob({ runAt: clock.iso(5_000) }));
      const summary = await store.jobs.enqueue('t', newJob({ type: 'summarize' }));
      clock.advance(1);
      const extract = await store.jobs.enqueue('t', newJob());
      expect(claimed(await store.jobs.claim('w', LEASE_MS, ['extract'])).id).toBe(extract.job.id);
      const next = claimed(await store.jobs.claim('w', LEASE_MS));
      expect(next).toMatchObject({
        id: summary.job.id,
        status: 'running',
        attempts: 1,
        workerId: 'w',
        startedAt: clock.iso(),
        availableAt: clock.iso(LEASE_MS),
      });
      expect(await store.jobs.claim('w', LEASE_MS)).toBeNull();
      // Due now, while the two leases above still hold.
      clock.advance(5_000);
      expect(claimed(await store.jobs.claim('w', LEASE_MS, ['extract', 'other'])).id).toBe(later.job.id);
    });

    it('completes a job with its result and finishes it', async () => {
      await store.jobs.enqueue('t', newJob());
      const job = claimed(await store.jobs.claim('w', LEASE_MS));
      clock.advance(250);
      const done = await store.jobs.complete(leaseOf(job), { memories: 2 });
      expect(done).toMatchObject({
        status: 'succeeded',
        result: { memories: 2 },
        workerId: null,
        availableAt: null,
        completedAt: clock.iso(),
        attempts: 1,
      });
      expect(await store.jobs.getJob('t', job.id)).toEqual(done);
      expect(await store.jobs.claim('w', LEASE_MS)).toBeNull();
      await expect(store.jobs.complete(leaseOf(job), null)).rejects.toBeInstanceOf(JobLeaseLostError);
    });

    it('retries a failed attempt at retryAt, then fails for good after maxAttempts, keeping the error', async () => {
      const { job } = await store.jobs.enqueue('t', newJob({ maxAttempts: 2 }));
      const first = claimed(await store.jobs.claim('w', LEASE_MS));
      const retried = await store.jobs.fail(
        leaseOf(first),
        { message: 'HTTP 429', code: 'llm_rate_limited' },
        clock.iso(5_000),
      );
      expect(retried).toMatchObject({
        status: 'pending',
        attempts: 1,
        availableAt: clock.iso(5_000),
        error: { message: 'HTTP 429', code: 'llm_rate_limited' },
        completedAt: null,
      });
      expect(await store.jobs.claim('w', LEASE_MS)).toBeNull();
      clock.advance(5_000);
      const second = claimed(await store.jobs.claim('w', LEASE_MS));
      expect(second.attempts).toBe(2);
      const failed = await store.jobs.fail(
        leaseOf(second),
        { message: 'malformed JSON', code: null },
        clock.iso(5_000),
      );
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: 2,
        availableAt: null,
        completedAt: clock.iso(),
        error: { message: 'malformed JSON', code: null },
      });
      clock.advance(10_000);
      expect(await store.jobs.claim('w', LEASE_MS)).toBeNull();
      expect((await store.jobs.getJob('t', job.id))?.status).toBe('failed');
    });

    it('clears the error of an earlier attempt when a retry succeeds', async () => {
      await store.jobs.enqueue('t', newJob());
      const first = claimed(await store.jobs.claim('w', LEASE_MS));
      await store.jobs.fail(leaseOf(first), { message: 'HTTP 500', code: 'llm_unavailable' }, clock.iso());
      const second = claimed(await store.jobs.claim('w', LEASE_MS));
      const done = await store.jobs.complete(leaseOf(second), null);
      expect(done).toMatchObject({ status: 'succeeded', attempts: 2, error: null });
      expect((await store.jobs.getJob('t', first.id))?.error).toBeNull();
    });

    it('fails at once, attempts left or not, when no retry time is given', async () => {
      await store.jobs.enqueue('t', newJob({ maxAttempts: 5 }));
      const job = claimed(await store.jobs.claim('w', LEASE_MS));
      const failed = await store.jobs.fail(leaseOf(job), { message: 'bad payload', code: 'invalid' }, null);
      expect(failed).toMatchObject({ status: 'failed', attempts: 1, completedAt: clock.iso() });
    });

    it('recovers a job whose worker died: the expired lease makes it claimable, the old holder is fenced off', async () => {
      const { job } = await store.jobs.enqueue('t', newJob());
      const crashed = claimed(await store.jobs.claim('worker-a', LEASE_MS));
      clock.advance(LEASE_MS - 1);
      expect(await store.jobs.claim('worker-b', LEASE_MS)).toBeNull();
      clock.advance(1);
      const recovered = claimed(await store.jobs.claim('worker-b', LEASE_MS));
      expect(recovered).toMatchObject({ id: job.id, workerId: 'worker-b', attempts: 2, status: 'running' });
      await expect(store.jobs.complete(leaseOf(crashed), {})).rejects.toBeInstanceOf(JobLeaseLostError);
      await expect(store.jobs.heartbeat(leaseOf(crashed), LEASE_MS)).rejects.toBeInstanceOf(
        JobLeaseLostError,
      );
      await expect(
        store.jobs.fail(leaseOf(crashed), { message: 'x', code: null }, null),
      ).rejects.toBeInstanceOf(JobLeaseLostError);
      expect((await store.jobs.complete(leaseOf(recovered), {})).status).toBe('succeeded');
    });

    it('keeps a job leased while its worker heartbeats', async () => {
      await store.jobs.enqueue('t', newJob());
      const job = claimed(await store.jobs.claim('w', LEASE_MS));
      clock.advance(LEASE_MS - 1);
      const extended = await store.jobs.heartbeat(leaseOf(job), LEASE_MS);
      expect(extended.availableAt).toBe(clock.iso(LEASE_MS));
      clock.advance(LEASE_MS - 1);
      expect(await store.jobs.claim('other', LEASE_MS)).toBeNull();
      expect((await store.jobs.complete(leaseOf(job), null)).status).toBe('succeeded');
    });

    it('fails visibly a job whose last allowed attempt died with its worker', async () => {
      const { job } = await store.jobs.enqueue('t', newJob({ maxAttempts: 1 }));
      claimed(await store.jobs.claim('worker-a', LEASE_MS));
      clock.advance(LEASE_MS);
      expect(await store.jobs.claim('worker-b', LEASE_MS)).toBeNull();
      expect(await store.jobs.getJob('t', job.id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        workerId: null,
        completedAt: clock.iso(),
        error: { code: 'job_lease_expired' },
      });
    });

    it('rejects lease operations on an unknown job with NotFoundError', async () => {
      const lease = { tenantId: 't', id: 'nope', workerId: 'w', attempt: 1 };
      await expect(store.jobs.complete(lease, null)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('hands every job to exactly one of many concurrent claimers', async () => {
      const enqueued = new Set<string>();
      for (let index = 0; index < 20; index++) {
        enqueued.add((await store.jobs.enqueue(`t${index % 3}`, newJob())).job.id);
      }
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, index) => store.jobs.claim(`w${index}`, LEASE_MS)),
      );
      const got = claims.filter((job): job is Job => job !== null).map((job) => job.id);
      expect(got).toHaveLength(20);
      expect(new Set(got)).toEqual(enqueued);
    });

    if (connectAgain) {
      it('never gives the same job to two connections claiming at once', async () => {
        const other = await connectAgain({ clock: clock.now });
        try {
          const enqueued = new Set<string>();
          for (let index = 0; index < 40; index++) {
            const store_ = index % 2 === 0 ? store : other;
            enqueued.add((await store_.jobs.enqueue('t', newJob())).job.id);
          }
          const claims = await Promise.all(
            Array.from({ length: 60 }, (_, index) =>
              (index % 2 === 0 ? store : other).jobs.claim(`w${index}`, LEASE_MS),
            ),
          );
          const got = claims.filter((job): job is Job => job !== null).map((job) => job.id);
          expect(got).toHaveLength(40);
          expect(new Set(got)).toEqual(enqueued);
          // The other connection sees the leases and the idempotency keys of this one.
          expect(await other.jobs.claim('late', LEASE_MS)).toBeNull();
          const keyed = await store.jobs.enqueue('t', newJob({ idempotencyKey: 'k' }));
          expect((await other.jobs.enqueue('t', newJob({ idempotencyKey: 'k' }))).job.id).toBe(keyed.job.id);
        } finally {
          await other.close();
        }
      });
    }

    it('lists a tenant’s jobs newest first, by status and type, with a true total', async () => {
      const made: string[] = [];
      for (const type of ['a', 'b', 'a', 'a'])
        made.push((await store.jobs.enqueue('t', newJob({ type }))).job.id);
      await store.jobs.enqueue('other', newJob({ type: 'a' }));
      const running = claimed(await store.jobs.claim('w', LEASE_MS));
      const all = await store.jobs.listJobs('t', { limit: 2, offset: 1 });
      expect(all.jobs.map((job) => job.id)).toEqual([made[2], made[1]]);
      expect(all.total).toBe(4);
      const pendingA = await store.jobs.listJobs('t', { status: 'pending', type: 'a', limit: 10, offset: 0 });
      expect(pendingA.jobs.map((job) => job.id)).toEqual([made[3], made[2]]);
      expect(pendingA.total).toBe(2);
      const runningJobs = await store.jobs.listJobs('t', { status: 'running', limit: 10, offset: 0 });
      expect(runningJobs.jobs.map((job) => job.id)).toEqual([running.id]);
    });

    it('folds an enqueue into the pending job of its coalesce key: one pending job per key and tenant', async () => {
      clock.advance(0);
      const first = await store.jobs.enqueue('t', newJob({ coalesceKey: 'summarize:s1', payload: { n: 1 } }));
      clock.advance(1_000);
      const again = await store.jobs.enqueue(
        't',
        newJob({ coalesceKey: 'summarize:s1', payload: { n: 2 }, runAt: clock.iso(60_000) }),
      );
      expect(again.created).toBe(false);
      // The same job, with the newest payload and its own run time.
      expect(again.job).toMatchObject({
        id: first.job.id,
        payload: { n: 2 },
        availableAt: first.job.availableAt,
      });
      expect((await store.jobs.getJob('t', first.job.id))?.payload).toEqual({ n: 2 });
      expect((await store.jobs.enqueue('other', newJob({ coalesceKey: 'summarize:s1' }))).created).toBe(true);
      expect((await store.jobs.enqueue('t', newJob({ coalesceKey: 'summarize:s2' }))).created).toBe(true);
      for (let n = 0; n < 20; n++) await store.jobs.enqueue('t', newJob({ coalesceKey: 'summarize:s1' }));
      const pending = await store.jobs.listJobs('t', { status: 'pending', limit: 100, offset: 0 });
      expect(pending.total).toBe(2);
      expect(pending.jobs.map((job) => job.coalesceKey).sort()).toEqual(['summarize:s1', 'summarize:s2']);
    });

    it('a running job absorbs nothing; a retry meets newer pending work and folds into it', async () => {
      await store.jobs.enqueue('t', newJob({ coalesceKey: 'k' }));
      const running = claimed(await store.jobs.claim('w', LEASE_MS));
      const newer = await store.jobs.enqueue('t', newJob({ coalesceKey: 'k', payload: { newer: true } }));
      expect(newer.created).toBe(true);
      expect((await store.jobs.enqueue('t', newJob({ coalesceKey: 'k' }))).job.id).toBe(newer.job.id);
      // The running attempt fails with a retry: the newer pending job carries it, no earlier.
      const failed = await store.jobs.fail(
        leaseOf(running),
        { message: 'boom', code: null },
        clock.iso(30_000),
      );
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'job_coalesced' } });
      expect(failed.error?.message).toContain(newer.job.id);
      expect((await store.jobs.getJob('t', newer.job.id))?.availableAt).toBe(clock.iso(30_000));
      expect(await store.jobs.claim('w', LEASE_MS)).toBeNull();
      clock.advance(30_000);
      expect(claimed(await store.jobs.claim('w', LEASE_MS)).id).toBe(newer.job.id);
    });

    it('claims fairly across tenants: a backlog of one tenant does not starve another', async () => {
      for (let n = 0; n < 30; n++) await store.jobs.enqueue('busy', newJob());
      clock.advance(1_000);
      await store.jobs.enqueue('quiet', newJob());
      await store.jobs.enqueue('quiet', newJob());
      clock.advance(1_000);
      const order: string[] = [];
      for (let n = 0; n < 6; n++) order.push(claimed(await store.jobs.claim('w', LEASE_MS)).tenantId);
      // Oldest due first at equal turns, then turns alternate while both have due work.
      expect(order).toEqual(['busy', 'quiet', 'busy', 'quiet', 'busy', 'busy']);
      // A tenant never served goes before any served one, whatever the backlog's age.
      await store.jobs.enqueue('new', newJob());
      expect(claimed(await store.jobs.claim('w', LEASE_MS)).tenantId).toBe('new');
    });

    it('prunes finished jobs completed before a time, oldest first, and frees their idempotency keys', async () => {
      const jobs: Job[] = [];
      for (const key of ['a', 'b', 'c']) {
        await store.jobs.enqueue('t', newJob({ idempotencyKey: key }));
        const job = claimed(await store.jobs.claim('w', LEASE_MS));
        jobs.push(
          key === 'b'
            ? await store.jobs.fail(leaseOf(job), { message: 'no', code: null }, null)
            : await store.jobs.complete(leaseOf(job), null),
        );
        clock.advance(1_000);
      }
      const pending = await store.jobs.enqueue('u', newJob());
      expect(await store.jobs.pruneJobs(clock.iso(), 2)).toBe(2);
      expect(await store.jobs.getJob('t', jobs[0]?.id ?? '')).toBeNull();
      expect(await store.jobs.getJob('t', jobs[1]?.id ?? '')).toBeNull();
      expect(await store.jobs.getJob('t', jobs[2]?.id ?? '')).not.toBeNull();
      expect(await store.jobs.pruneJobs(jobs[2]?.completedAt ?? '', 100)).toBe(0);
      expect(await store.jobs.pruneJobs(clock.iso(), 100)).toBe(1);
      expect(await store.jobs.getJob('u', pending.job.id)).not.toBeNull();
      expect((await store.jobs.enqueue('t', newJob({ idempotencyKey: 'a' }))).created).toBe(true);
    });

    it('returns copies and rejects every call after close', async () => {
      const { job } = await store.jobs.enqueue('t', newJob({ payload: { nested: { n: 1 } } }));
      (job.payload.nested as { n: number }).n = 2;
      expect((await store.jobs.getJob('t', job.id))?.payload).toEqual({ nested: { n: 1 } });
      await store.close();
      await expect(store.jobs.getJob('t', job.id)).rejects.toBeInstanceOf(StoreError);
      await expect(store.jobs.claim('w', LEASE_MS)).rejects.toBeInstanceOf(StoreError);
      await expect(store.jobs.enqueue('t', newJob())).rejects.toBeInstanceOf(StoreError);
    });
  });
}
