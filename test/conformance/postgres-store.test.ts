import { describe, it, vi } from 'vitest';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';
import { describeDocumentStoreConformance } from './document-conformance.js';
import { describeJobStoreConformance } from './job-conformance.js';
import { describeJobFailureConformance } from './job-failure-conformance.js';
import { describeMemoryRecordStoreConformance } from './memory-record-conformance.js';
import { describeSessionStoreConformance } from './session-store-conformance.js';

const database = await usePostgresTestSchema('conformance');
// The at-scale memory tests seed 9,000 vectors and build an HNSW index each: ~20 s on a busy 2-core machine.
vi.setConfig({ testTimeout: 90_000 });

if (database === null) {
  describe.skip('PostgreSQL store conformance (PostgreSQL unreachable)', () =>
    it('needs PostgreSQL', () => {}));
} else {
  const { url, schema, truncate } = database;
  const connect = (clock?: () => Date) =>
    createPostgresStore({ connectionString: url, schema, clock, poolSize: 4 });
  // Each test starts from empty tables; `connectAgain` opens a second pool on the same data.
  const fresh = async (clock?: () => Date) => {
    await truncate();
    return connect(clock);
  };
  describeSessionStoreConformance('postgres', ({ clock }) => fresh(clock));
  describeMemoryRecordStoreConformance(
    'postgres',
    () => fresh(),
    () => connect(),
  );
  // Once a tenant's mirror is loaded its vectors are searched in process; the same suite again
  // with vector search kept in PostgreSQL (pgvector's HNSW index, the tail, the exact scans).
  const inPostgres = async () => {
    await truncate();
    return createPostgresStore({ connectionString: url, schema, poolSize: 4, inProcessVectorIndex: false });
  };
  describeMemoryRecordStoreConformance('postgres, vectors searched in PostgreSQL', inPostgres, () =>
    createPostgresStore({ connectionString: url, schema, poolSize: 4, inProcessVectorIndex: false }),
  );
  describeDocumentStoreConformance(
    'postgres, two pools',
    () => fresh(),
    () => connect(),
  );
  describeJobStoreConformance(
    'postgres, two pools',
    ({ clock }) => fresh(clock),
    ({ clock }) => connect(clock),
  );
  describeJobFailureConformance('postgres', ({ clock }) => fresh(clock));
}
