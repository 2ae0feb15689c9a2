// A separate process that claims jobs from a SQLite file until none is due, completing each, and
// prints the ids it got as JSON. Used to prove claims are exclusive across processes.

import { leaseOf } from '../../src/stores/job-store.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';

const [path, worker] = process.argv.slice(2);
if (!path || !worker) throw new Error('usage: claim-jobs-process.ts <database> <worker>');
const store = await createSqliteStore({ path });
const claimed: string[] = [];
for (;;) {
  const job = await store.jobs.claim(worker, 60_000);
  if (!job) break;
  claimed.push(job.id);
  await store.jobs.complete(leaseOf(job), { worker });
}
await store.close();
process.stdout.write(JSON.stringify(claimed));
