import { describe, expect, it } from 'vitest';
import { leaseOf } from '../../src/stores/job-store.js';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('jobs');

describe.skipIf(database === null)('PostgreSQL jobs across servers', () => {
  const { url, schema, truncate } = database ?? { url: '', schema: '', truncate: async () => {} };
  const open = (count: number) =>
    Promise.all(
      Array.from({ length: count }, () =>
        createPostgresStore({ connectionString: url, schema, poolSize: 2 }),
      ),
    );

  it('keeps one pending job per coalesce key when servers enqueue it at the same moment', async () => {
    await truncate();
    const stores = await open(6);
    try {
      const results = await Promise.all(
        stores.map((store, index) =>
          store.jobs.enqueue('t', {
            id: `job-${index}`,
            type: 'summarize',
            payload: { n: index },
            coalesceKey: 'session:s1',
            maxAttempts: 3,
          }),
        ),
      );
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(new Set(results.map((result) => result.job.id)).size).toBe(1);
      const pending = await stores[0]?.jobs.listJobs('t', { status: 'pending', limit: 10, offset: 0 });
      expect(pending?.total).toBe(1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('folds retries and enqueues racing on one coalesce key into one pending job', async () => {
    await truncate();
    const stores = await open(4);
    const [first] = stores;
    try {
      if (!first) throw new Error('no store');
      for (let round = 0; round < 5; round += 1) {
        await first.jobs.enqueue('t', {
          id: `base-${round}`,
          type: 'summarize',
          payload: {},
          coalesceKey: 'session:s1',
          maxAttempts: 5,
        });
        const running = await first.jobs.claim('w', 60_000);
        if (!running) throw new Error('nothing claimed');
        const retryAt = new Date(Date.now() - 1).toISOString();
        await Promise.all([
          first.jobs.fail(leaseOf(running), { message: 'boom', code: null }, retryAt),
          ...stores.map((store, index) =>
            store.jobs.enqueue('t', {
              id: `more-${round}-${index}`,
              type: 'summarize',
              payload: { index },
              coalesceKey: 'session:s1',
              maxAttempts: 5,
            }),
          ),
        ]);
        const pending = await first.jobs.listJobs('t', { status: 'pending', limit: 10, offset: 0 });
        expect(pending.total).toBe(1);
        // Leave nothing pending for the next round.
        const next = await first.jobs.claim('w', 60_000);
        if (next) await first.jobs.complete(leaseOf(next), null);
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
