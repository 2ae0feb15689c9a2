import type { DocumentStore } from './document-store.js';
import type { JobStore } from './job-store.js';
import type { MemoryRecordStore } from './memory-record-store.js';
import type { SessionStore } from './session-store.js';

/**
 * What a driver factory returns: the session store, with the long-term memory store of the same
 * backend (same process memory, or same SQLite file) as `memories` and its keyed JSON documents
 * (agents, API keys, traces) as `documents` and its durable background job queue as `jobs`. `close()` releases all of them once; afterwards calls
 * to any reject with StoreError.
 */
export type EngramStore = SessionStore & {
  readonly memories: MemoryRecordStore;
  readonly documents: DocumentStore;
  readonly jobs: JobStore;
};
