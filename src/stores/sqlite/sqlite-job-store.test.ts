import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../../../test/support/temporary-directories.js';
import { createSqliteStore } from './sqlite-store.js';

const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-sqlite-jobs-');

describe('SQLite job store across processes', () => {
  it('gives each job to exactly one of several processes claiming from the same file at once', async () => {
    const path = join(temporaryDirectory(), 'engram.db');
    const store = await createSqliteStore({ path });
    const enqueued: string[] = [];
    for (let index = 0; index < 300; index++) {
      const id = `job-${String(index).padStart(4, '0')}`;
      await store.jobs.enqueue(`t${index % 2}`, { id, type: 'work', payload: {}, maxAttempts: 1 });
      enqueued.push(id);
    }
    const workers = ['a', 'b', 'c'].map((worker) =>
      run('node', ['--import', 'tsx', 'test/support/claim-jobs-process.ts', path, worker]),
    );
    const claimed = (await Promise.all(workers)).map(({ stdout }) => JSON.parse(stdout) as string[]);
    const all = claimed.flat();
    expect(all.length).toBe(enqueued.length);
    expect(new Set(all).size).toBe(enqueued.length);
    const { jobs, total } = await store.jobs.listJobs('t0', { status: 'succeeded', limit: 1, offset: 0 });
    expect(total).toBe(150);
    expect(jobs[0]?.attempts).toBe(1);
    await store.close();
  });
});
