import { createMemoryStore } from '../../src/stores/memory/memory-store.js';
import { describeDocumentStoreConformance } from './document-conformance.js';
import { describeJobStoreConformance } from './job-conformance.js';
import { describeJobFailureConformance } from './job-failure-conformance.js';
import { describeMemoryRecordStoreConformance } from './memory-record-conformance.js';
import { describeSessionStoreConformance } from './session-store-conformance.js';

describeSessionStoreConformance('memory', async ({ clock }) => createMemoryStore({ clock }));
describeMemoryRecordStoreConformance('memory', async () => createMemoryStore());
describeDocumentStoreConformance('memory', async () => createMemoryStore());
describeJobStoreConformance('memory', async ({ clock }) => createMemoryStore({ clock }));
describeJobFailureConformance('memory', async ({ clock }) => createMemoryStore({ clock }));
