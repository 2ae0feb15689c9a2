import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { describeDocumentStoreConformance } from './document-conformance.js';
import { describeJobStoreConformance } from './job-conformance.js';
import { describeJobFailureConformance } from './job-failure-conformance.js';
import { describeMemoryRecordStoreConformance } from './memory-record-conformance.js';
import { describeSessionStoreConformance } from './session-store-conformance.js';

const directory = mkdtempSync(join(tmpdir(), 'engram-sqlite-conformance-'));
let files = 0;

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describeSessionStoreConformance('sqlite :memory:', ({ clock }) =>
  createSqliteStore({ path: ':memory:', clock }),
);

describeSessionStoreConformance('sqlite file', ({ clock }) => {
  files += 1;
  // A nested path, so the driver's creation of parent directories is exercised too.
  return createSqliteStore({ path: join(directory, `store-${files}`, 'sessions.db'), clock });
});

const memoryFile = () => join(directory, `memories-${files}`, 'engram.db');
describeMemoryRecordStoreConformance(
  'sqlite file, sqlite-vec',
  () => {
    files += 1;
    return createSqliteStore({ path: memoryFile() });
  },
  () => createSqliteStore({ path: memoryFile() }),
);

describeMemoryRecordStoreConformance('sqlite :memory:, JavaScript distances', () =>
  createSqliteStore({ path: ':memory:', vectorExtension: false }),
);

const documentFile = () => join(directory, `documents-${files}`, 'engram.db');
describeDocumentStoreConformance(
  'sqlite file',
  () => {
    files += 1;
    return createSqliteStore({ path: documentFile() });
  },
  () => createSqliteStore({ path: documentFile() }),
);
describeDocumentStoreConformance('sqlite :memory:', () => createSqliteStore({ path: ':memory:' }));

const jobFile = () => join(directory, `jobs-${files}`, 'engram.db');
describeJobStoreConformance(
  'sqlite file, two connections',
  ({ clock }) => {
    files += 1;
    return createSqliteStore({ path: jobFile(), clock });
  },
  ({ clock }) => createSqliteStore({ path: jobFile(), clock }),
);
describeJobStoreConformance('sqlite :memory:', ({ clock }) => createSqliteStore({ path: ':memory:', clock }));
describeJobFailureConformance('sqlite file', ({ clock }) => {
  files += 1;
  return createSqliteStore({ path: jobFile(), clock });
});
