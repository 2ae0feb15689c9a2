import type { EngramStore } from '../engram-store.js';
import { createStoreThread, type StoreThreadOptions, type WorkerStoreOptions } from './store-thread.js';
import type { WorkerDriverName } from './worker-protocol.js';

export type { StoreThreadOptions, WorkerStoreOptions } from './store-thread.js';

/**
 * Opens a store driver in a worker thread of its own (`createStoreThread`) and returns the same
 * `EngramStore` contract; closing the store stops the thread. `engram serve` opens its SQLite file
 * this way (`storeThread: worker`), so that no statement, fsync or large transaction holds the
 * thread that answers requests. Rejects like the driver when it cannot open (a StoreError for an
 * unusable SQLite file).
 */
export async function createWorkerStore<Driver extends WorkerDriverName>(
  options: WorkerStoreOptions<Driver> & StoreThreadOptions,
): Promise<EngramStore> {
  const { resourceLimits, onStop } = options;
  const thread = createStoreThread({ ...(resourceLimits && { resourceLimits }), ...(onStop && { onStop }) });
  let store: EngramStore;
  try {
    store = await thread.open(options);
  } catch (error) {
    await thread.close();
    throw error;
  }
  return {
    ...store,
    close: async () => {
      try {
        await store.close();
      } finally {
        await thread.close();
      }
    },
  };
}
