import type { ResourceLimits, Worker } from 'node:worker_threads';
import { StoreError } from '../../core/errors.js';
import { DEFAULT_SLICE_MS } from '../../core/event-loop-slicer.js';
import type { SessionKey } from '../../core/schemas/session.js';
import { startModuleWorker } from '../../engine/start-module-worker.js';
import type { EngramStore } from '../engram-store.js';
import type { StoreCapabilities } from '../session-store.js';
import { toStoreFailure } from '../sqlite/open-database.js';
import { openSqliteRevisionReader, type SqliteRevisionReader } from '../sqlite/sqlite-revision-reader.js';
import {
  chunkedBuffers,
  decodeLargeArrays,
  encodeLargeArrays,
  holdsChunkedArray,
  holdsLargeArray,
} from './chunked-arrays.js';
import { reviveError } from './transferred-error.js';
import type {
  ReplyMessage,
  RequestMessage,
  StorePart,
  StoreShape,
  WorkerDriverName,
  WorkerDrivers,
} from './worker-protocol.js';

/** Options of a store opened in a store thread. */
export interface WorkerStoreOptions<Driver extends WorkerDriverName = WorkerDriverName> {
  /** The driver the thread opens: `sqlite` (the server's default) or `memory` (tests). */
  driver: Driver;
  /** The driver's own options (for SQLite: `path`, `vectorExtension`). */
  options: WorkerDrivers[Driver];
  /**
   * A clock for the store (tests): each call carries its reading, taken when the call is made, and
   * the driver in the thread reads that. Absent: the thread reads the real time itself.
   */
  clock?: () => Date;
}

/** Options of `createStoreThread`. */
export interface StoreThreadOptions {
  /** Caps on the thread's heap (Node's `resourceLimits`): past them the thread stops, as below. */
  resourceLimits?: ResourceLimits;
  /**
   * Called once if the thread stops without being closed (it ran out of memory, a native crash):
   * every call then rejects with StoreError. `engram serve` logs it and exits 1, so that its
   * supervisor restarts it.
   */
  onStop?: (error: StoreError) => void;
}

/** A worker thread holding stores; see `createStoreThread`. */
export interface StoreThread {
  /** Opens a store in the thread; rejects as the driver does when it cannot open. */
  open<Driver extends WorkerDriverName>(options: WorkerStoreOptions<Driver>): Promise<EngramStore>;
  /** Stops the thread; calls still in flight, and later ones, reject with StoreError. */
  close(): Promise<void>;
}

/** The thread running `store-worker.ts` (`startModuleWorker`). */
function startWorker(resourceLimits: ResourceLimits | undefined): Worker {
  return startModuleWorker(import.meta.url, 'store-worker', resourceLimits ? { resourceLimits } : {});
}

/**
 * The reads a driver serves from the calling thread itself: for a SQLite file, `sessionRevision`
 * on a read-only connection (the cached GET's one read; a round trip to the thread costs 10× more).
 * Opened after the thread has migrated the file. None for `:memory:` (a private database per connection).
 */
async function openCallerReader(options: WorkerStoreOptions): Promise<SqliteRevisionReader | undefined> {
  if (options.driver !== 'sqlite') return undefined;
  const { path } = options.options as WorkerDrivers['sqlite'];
  if (path === ':memory:' || path === '') return undefined;
  return openSqliteRevisionReader(path, options.clock ?? (() => new Date()));
}

/**
 * Starts a worker thread that runs store drivers, each store it opens reached through the same
 * `EngramStore` contract: every method is a message to the thread, arguments and results copied by
 * structured clone, errors revived with their class, `code` and details. The drivers' synchronous
 * work (SQLite statements and fsyncs, the one transaction of a 100,000-message PUT, index builds,
 * vector scans) then never blocks the calling thread. The thread holds the process open only while
 * calls are in flight. Arguments are copied when the call is made, except arrays of more than
 * 2,000 items (`chunked-arrays.ts`), whose items are copied chunk by chunk afterwards: a caller
 * must not change them until the call settles (engram's own callers never do).
 */
export function createStoreThread(options: StoreThreadOptions = {}): StoreThread {
  const worker = startWorker(options.resourceLimits);
  let closing = false;
  worker.unref();
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextRequest = 0;
  let nextStore = 0;
  let stopped: StoreError | undefined;

  /** Fails every request in flight and every later one: the thread is gone. */
  const stop = (error: StoreError): void => {
    if (stopped === undefined && !closing) options.onStop?.(error);
    stopped ??= error;
    for (const request of pending.values()) request.reject(stopped);
    pending.clear();
    worker.unref();
  };
  /** Settles a request; its result's large arrays are decoded in slices first. */
  const settle = async (reply: ReplyMessage): Promise<void> => {
    if (!pending.has(reply.id)) return;
    if (reply.type === 'error') return finish(reply.id)?.reject(reviveError(reply.error));
    const value = holdsChunkedArray(reply.value)
      ? await decodeLargeArrays(reply.value, DEFAULT_SLICE_MS)
      : reply.value;
    finish(reply.id)?.resolve(value);
  };
  const finish = (id: number) => {
    const request = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    return request;
  };
  worker.on('message', (reply: ReplyMessage) => {
    settle(reply).catch((error: unknown) => finish(reply.id)?.reject(error as Error));
  });
  worker.on('error', (error) => stop(new StoreError(`The store thread failed: ${error.message}`, error)));
  worker.on('exit', (code) => stop(new StoreError(`The store thread stopped (exit code ${code})`)));

  /**
   * Requests still being encoded, in call order: a request made after one that is being encoded
   * waits for it, so the thread runs calls in the order they were made, as an in-process store does.
   */
  let backlog: Promise<void> | undefined;
  const post = (id: number, message: RequestMessage, transfer: ArrayBuffer[]): void => {
    if (!pending.has(id)) return;
    try {
      worker.postMessage(message, transfer);
    } catch (error) {
      // An argument structured clone cannot copy (a function, a class with private state).
      finish(id)?.reject(error as Error);
    }
  };
  /** Sends one request; `message` is built with the id it is given. */
  const send = (build: (id: number) => RequestMessage): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (stopped) return reject(stopped);
      const id = nextRequest++;
      const message = build(id);
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      const large = message.type === 'call' && message.args.some(holdsLargeArray);
      // Arrays encoded by the caller (a PUT's messages, prepared in another thread) are moved, not copied.
      const moved = message.type === 'call' ? message.args.flatMap(chunkedBuffers) : [];
      if (!large && backlog === undefined) return post(id, message, moved);
      const encoded = (backlog ?? Promise.resolve()).then(async () => {
        if (!large || message.type !== 'call') return post(id, message, moved);
        const transfer: ArrayBuffer[] = [...moved];
        const args: unknown[] = [];
        for (const arg of message.args) args.push(await encodeLargeArrays(arg, transfer, DEFAULT_SLICE_MS));
        post(id, { ...message, args }, transfer);
      });
      const tail: Promise<void> = encoded
        .catch((error: unknown) => finish(id)?.reject(error as Error))
        .then(() => {
          if (backlog === tail) backlog = undefined;
        });
      backlog = tail;
    });

  const open = async (storeOptions: WorkerStoreOptions): Promise<EngramStore> => {
    const store = nextStore++;
    const { driver, options: driverOptions, clock } = storeOptions;
    const start = { driver, options: driverOptions, forwardedClock: clock !== undefined };
    const shape = (await send((id) => ({ type: 'open', id, store, start }))) as StoreShape;
    let closed: StoreError | undefined;
    const call =
      (part: StorePart, method: string) =>
      (...args: unknown[]): Promise<unknown> =>
        closed
          ? Promise.reject(closed)
          : send((id) => ({
              type: 'call',
              id,
              store,
              part,
              method,
              args,
              ...(clock && { now: clock().getTime() }),
            }));
    const methods = (part: StorePart) =>
      Object.fromEntries(shape.methods[part].map((method) => [method, call(part, method)]));

    const closeInThread = call('sessions', 'close');
    let reader: SqliteRevisionReader | undefined;
    try {
      reader = await openCallerReader(storeOptions);
    } catch (error) {
      await closeInThread().catch(() => undefined);
      throw toStoreFailure(error);
    }
    let closing: Promise<void> | undefined;
    let readerClosed: StoreError | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        const closedError = new StoreError(`The ${shape.driver} store is closed`);
        // The reader closes first: the last connection to close checkpoints the WAL into the
        // database file, and a read-only one never does (a copy of engram.db after a clean stop
        // would otherwise hold nothing of what was written).
        readerClosed = closedError;
        reader?.close();
        try {
          if (!stopped) await closeInThread();
        } finally {
          closed = closedError;
        }
      })();
      return closing;
    };
    return {
      ...methods('sessions'),
      ...(reader && {
        sessionRevision: (key: SessionKey) => {
          const refusal = closed ?? readerClosed ?? stopped;
          return refusal ? Promise.reject(refusal) : reader.sessionRevision(key);
        },
      }),
      driver: shape.driver,
      // Encoded arguments are decoded in the thread (`store-worker.ts`), where they are written.
      capabilities: { ...(shape.capabilities as StoreCapabilities), encodedMessages: true },
      memories: { ...methods('memories'), capabilities: shape.memoryCapabilities },
      documents: methods('documents'),
      jobs: methods('jobs'),
      close,
    } as unknown as EngramStore;
  };

  return {
    open,
    close: async () => {
      closing = true;
      stop(new StoreError('The store thread is closed'));
      await worker.terminate();
    },
  };
}
