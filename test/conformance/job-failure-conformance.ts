import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngramStore } from '../../src/stores/engram-store.js';
import { leaseOf } from '../../src/stores/job-store.js';
import { claimed, createFakeClock, type FakeClock, jobMaker } from './fixtures.js';

const LEASE_MS = 10_000;

const newJob = jobMaker('failing');

/**
 * How every `JobStore` driver ends work that keeps failing or that nobody handles: folded retries,
 * stopped attempts, unclaimed jobs (job-store.ts). Beside job-conformance.ts, with the same factory.
 */
export function describeJobFailureConformance(
  name: string,
  factory: (context: { clock: () => Date }) => Promise<EngramStore>,
): void {
  describe(`JobStore failure conformance: ${name}`, () => {
    let store: EngramStore;
    let clock: FakeClock;
    beforeEach(async () => {
      clock = createFakeClock();
      store = await factory({ clock: clock.now });
    });
    afterEach(async () => {
      await store.close();
    });

    it('a folded retry hands over its attempts: work failing on every retry runs out of them', async () => {
      await store.jobs.enqueue('t', newJob({ coalesceKey: 'k' }));
      let running = claimed(await store.jobs.claim('w', LEASE_MS));
      const ids: string[] = [];
      for (let attempt = 1; attempt <= 3; attempt++) {
        expect(running.attempts).toBe(attempt);
        // New work arrives while each attempt runs, and each attempt fails with a retry.
        const newer = await store.jobs.enqueue('t', newJob({ coalesceKey: 'k' }));
        ids.push(newer.job.id);
        const failed = await store.jobs.fail(
          leaseOf(running),
          { message: 'bad json', code: 'x' },
          clock.iso(10),
        );
        if (attempt === 3) {
          // The last attempt fails for good; the newer work keeps its own attempts.
          expect(failed).toMatchObject({ status: 'failed', error: { message: 'bad json' } });
          expect(await store.jobs.getJob('t', newer.job.id)).toMatchObject({ attempts: 0, error: null });
          break;
        }
        expect(failed.error?.code).toBe('job_coalesced');
        expect(await store.jobs.getJob('t', newer.job.id)).toMatchObject({
          status: 'pending',
          attempts: attempt,
          error: { message: 'bad json', code: 'x' },
        });
        clock.advance(10);
        running = claimed(await store.jobs.claim('w', LEASE_MS));
        expect(running.id).toBe(newer.job.id);
      }
      expect(new Set(ids).size).toBe(3);
    });

    it('an attempt stopped without a failure (a shutdown) keeps the last error as it was', async () => {
      const job = (await store.jobs.enqueue('t', newJob())).job;
      const first = claimed(await store.jobs.claim('w', LEASE_MS));
      expect(await store.jobs.fail(leaseOf(first), null, clock.iso())).toMatchObject({
        status: 'pending',
        attempts: 1,
        error: null,
      });
      const second = claimed(await store.jobs.claim('w', LEASE_MS));
      await store.jobs.fail(leaseOf(second), { message: 'boom', code: 'x' }, clock.iso());
      const third = claimed(await store.jobs.claim('w', LEASE_MS));
      expect(await store.jobs.fail(leaseOf(third), null, clock.iso())).toMatchObject({
        id: job.id,
        status: 'failed',
        attempts: 3,
        error: { message: 'boom', code: 'x' },
      });
    });

    it('fails jobs due since before a time that nobody claimed, longest due first, up to a limit', async () => {
      const failure = { message: 'nobody handles it', code: 'job_unclaimed' };
      const abandoned = (await store.jobs.enqueue('u', newJob({ type: 'orphan' }))).job;
      // Its worker died: the lease expires (due again at LEASE_MS) and nobody takes the job over.
      claimed(await store.jobs.claim('w', LEASE_MS, ['orphan']));
      clock.advance(1_000);
      const oldest = (await store.jobs.enqueue('t', newJob({ type: 'orphan' }))).job;
      clock.advance(LEASE_MS + 1_000);
      const recent = (await store.jobs.enqueue('t', newJob({ type: 'orphan' }))).job;
      const later = (await store.jobs.enqueue('t', newJob({ runAt: clock.iso(60_000) }))).job;
      await store.jobs.enqueue('t', newJob({ idempotencyKey: 'done' }));
      const done = claimed(await store.jobs.claim('w', LEASE_MS, ['extract']));
      await store.jobs.complete(leaseOf(done), null);
      clock.advance(10);

      const before = clock.iso(-10);
      expect(await store.jobs.failUnclaimedJobs(before, failure, 1)).toBe(1);
      expect(await store.jobs.getJob('t', oldest.id)).toMatchObject({
        status: 'failed',
        error: failure,
        availableAt: null,
        workerId: null,
        completedAt: clock.iso(),
      });
      expect(await store.jobs.getJob('u', abandoned.id)).toMatchObject({ status: 'running' });
      expect(await store.jobs.failUnclaimedJobs(before, failure, 10)).toBe(1);
      expect(await store.jobs.getJob('u', abandoned.id)).toMatchObject({ status: 'failed', error: failure });
      for (const job of [recent, later]) {
        expect(await store.jobs.getJob('t', job.id)).toMatchObject({ status: 'pending', error: null });
      }
      expect(await store.jobs.getJob('t', done.id)).toMatchObject({ status: 'succeeded', error: null });
      expect(await store.jobs.failUnclaimedJobs(before, failure, 10)).toBe(0);
      // Finished now: pruned by completion time like any other.
      expect(await store.jobs.pruneJobs(clock.iso(1), 10)).toBe(3);
    });
  });
}
