import type { MemoryRecordStore } from './memory-record-store.js';
import type { SessionStore } from './session-store.js';

/**
 * What a driver factory returns: the session store, with the long-term memory store of the same
 * backend (same process memory, or same SQLite file) as `memories`. `close()` releases both once;
 * afterwards calls to either reject with StoreError.
 */
export type EngramStore = SessionStore & { readonly memories: MemoryRecordStore };
