import { createMemoryStore } from '../../src/stores/memory/memory-store.js';
import { describeSessionStoreConformance } from './session-store-conformance.js';

describeSessionStoreConformance('memory', async ({ clock }) => createMemoryStore({ clock }));
