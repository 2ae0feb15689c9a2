import { StoreError } from '../core/errors.js';
import { redactedUrl } from '../core/redacted-url.js';
import type { EngramStore } from '../stores/engram-store.js';
import { createSqliteStore } from '../stores/sqlite/sqlite-store.js';
import { createWorkerStore } from '../stores/worker/worker-store.js';
import type { ServerConfig } from './server-config.js';

/** The store the settings name, and how to describe it in logs (never with a password). */
export interface ConfiguredStore {
  store: EngramStore;
  description: string;
}

/** Query parameters the PostgreSQL client reads as secrets (pg-connection-string). */
const SECRET_PARAMETERS = ['password', 'sslpassword', 'sslkey'];

/** A PostgreSQL URL without its password (before the host or in the query), for messages. */
export function redactedStoreUrl(url: string): string {
  // The role and the other parameters (`schema`, `sslmode`) help a diagnosis and are no secrets.
  return redactedUrl(url, {
    keepUsername: true,
    shownParameter: (name) => !SECRET_PARAMETERS.includes(name),
  });
}

/**
 * Opens the configured store: PostgreSQL when `storeUrl` is set (a `schema` query parameter picks
 * the schema), else the SQLite file, in a thread of its own when `storeThread` is `worker` (the
 * server's default; one-shot CLI commands leave it out and open the file in their own thread);
 * `onStoreThreadStop` hears of a store thread that stopped without being closed.
 * The postgres driver is imported only when asked for. Rejects with StoreError
 * (`store_unavailable`) when the database cannot be reached.
 */
export async function openConfiguredStore(
  config: Pick<
    ServerConfig,
    'databasePath' | 'storeUrl' | 'storePoolSize' | 'storeHnswEfConstruction' | 'storeHnswEfSearch'
  > & {
    storeThread?: ServerConfig['storeThread'];
  },
  warn: (message: string) => void,
  onStoreThreadStop?: (error: StoreError) => void,
): Promise<ConfiguredStore> {
  if (config.storeUrl === undefined) {
    const path = config.databasePath;
    const threaded = config.storeThread === 'worker';
    return {
      store: threaded
        ? await createWorkerStore({
            driver: 'sqlite',
            options: { path },
            ...(onStoreThreadStop && { onStop: onStoreThreadStop }),
          })
        : await createSqliteStore({ path }),
      description: `database ${path}${threaded ? ' (store thread)' : ''}`,
    };
  }
  const url = new URL(config.storeUrl);
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  const { createPostgresStore } = await import('../stores/postgres/postgres-store.js');
  let store: EngramStore;
  try {
    store = await createPostgresStore({
      connectionString: url.toString(),
      ...(schema === undefined ? {} : { schema }),
      poolSize: config.storePoolSize,
      hnswEfConstruction: config.storeHnswEfConstruction,
      hnswEfSearch: config.storeHnswEfSearch,
      warn,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreError(
      `Cannot open the PostgreSQL store at ${redactedStoreUrl(config.storeUrl)}: ${reason}`,
      error,
    );
  }
  return { store, description: `store ${redactedStoreUrl(config.storeUrl)}` };
}
