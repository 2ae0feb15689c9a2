import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createStoreThread } from '../../src/stores/worker/store-thread.js';
import { describeDocumentStoreConformance } from './document-conformance.js';
import { describeJobStoreConformance } from './job-conformance.js';
import { describeJobFailureConformance } from './job-failure-conformance.js';
import { describeMemoryRecordStoreConformance } from './memory-record-conformance.js';
import { describeSessionStoreConformance } from './session-store-conformance.js';

// The SQLite driver as `engram serve` runs it: in a store thread, every call a message. One thread
// holds this file's stores (starting a thread from the TypeScript sources costs ~0.7 s).
const thread = createStoreThread();
const directory = mkdtempSync(join(tmpdir(), 'engram-worker-conformance-'));
let files = 0;
const file = (kind: string) => join(directory, `${kind}-${files}`, 'engram.db');

afterAll(async () => {
  await thread.close();
  rmSync(directory, { recursive: true, force: true });
});

describeSessionStoreConformance('sqlite file in a store thread', ({ clock }) => {
  files += 1;
  return thread.open({ driver: 'sqlite', options: { path: file('sessions') }, clock });
});

describeSessionStoreConformance('sqlite :memory: in a store thread', ({ clock }) =>
  thread.open({ driver: 'sqlite', options: { path: ':memory:' }, clock }),
);

describeMemoryRecordStoreConformance(
  'sqlite file in a store thread',
  () => {
    files += 1;
    return thread.open({ driver: 'sqlite', options: { path: file('memories') } });
  },
  () => thread.open({ driver: 'sqlite', options: { path: file('memories') } }),
);

describeDocumentStoreConformance(
  'sqlite file in a store thread',
  () => {
    files += 1;
    return thread.open({ driver: 'sqlite', options: { path: file('documents') } });
  },
  () => thread.open({ driver: 'sqlite', options: { path: file('documents') } }),
);

describeJobStoreConformance(
  'sqlite file in a store thread, two connections',
  ({ clock }) => {
    files += 1;
    return thread.open({ driver: 'sqlite', options: { path: file('jobs') }, clock });
  },
  ({ clock }) => thread.open({ driver: 'sqlite', options: { path: file('jobs') }, clock }),
);

describeJobFailureConformance('sqlite file in a store thread', ({ clock }) => {
  files += 1;
  return thread.open({ driver: 'sqlite', options: { path: file('failing-jobs') }, clock });
});
