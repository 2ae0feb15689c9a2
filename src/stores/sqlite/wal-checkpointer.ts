import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

/** How often the background connection checkpoints the WAL. */
export const CHECKPOINT_INTERVAL_MS = 1_000;
/**
 * The writing connection's own automatic checkpoint, as a safety net only: at 16,384 pages (64 MiB
 * of WAL) instead of SQLite's 1,000, it runs only if the background one falls behind or stops.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 16_384;

/** A connection in a thread of its own that checkpoints a database file's WAL. */
export interface WalCheckpointer {
  /** Stops the thread after its checkpoint under way, if any; the writer's own checkpoint remains. */
  close(): Promise<void>;
}

// CommonJS, evaluated in the worker: better-sqlite3 is required by the resolved path it is given.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.library);
const database = new Database(workerData.path, { fileMustExist: true });
database.pragma('busy_timeout = 1000');
database.pragma('synchronous = FULL');
const timer = setInterval(() => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  try { database.close(); } catch {}
  parentPort.close();
});
`;

/**
 * Moves WAL checkpoints off the writing connection. SQLite runs a checkpoint inside the commit that
 * pushes the WAL past `wal_autocheckpoint` pages (1,000 by default), on the thread that committed:
 * copying up to 4 MiB back into the database file and fsyncing it, 30–60 ms here, in the middle of
 * whatever write crossed the mark (an append, a turn's access statistics). A connection in a thread
 * of its own checkpoints every `intervalMs` instead (PASSIVE: it never waits for readers or the
 * writer), so on another core; the writer's automatic checkpoint stays as a safety net at
 * `FALLBACK_AUTOCHECKPOINT_PAGES`. Durability is unchanged: commits are fsynced in the WAL
 * (`synchronous = FULL`) before they return, checkpointed or not.
 */
export function startWalCheckpointer(
  database: Database,
  path: string,
  intervalMs = CHECKPOINT_INTERVAL_MS,
  onError: (message: string) => void = (message) =>
    console.error(`engram: WAL checkpoint failed: ${message}`),
): WalCheckpointer {
  const library = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { library, path, intervalMs } });
  // The process may exit while it runs; it holds no state worth waiting for.
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) onError(message.error);
  });
  worker.on('error', (error) => onError(error.message));
  database.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let closing: Promise<void> | undefined;
  return {
    close() {
      if (!closing) {
        // Held while it stops: an unreferenced thread lets the process exit under a pending close.
        worker.ref();
        worker.postMessage('close');
        closing = exited;
      }
      return closing;
    },
  };
}
