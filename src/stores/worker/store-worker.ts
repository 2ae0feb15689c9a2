/**
 * The store thread's entry point (see `store-thread.ts`): opens the stores it is asked to, then
 * runs each call it is sent and posts back its result or error. The drivers' synchronous work
 * (SQLite statements and their fsyncs, index builds, brute-force vector scans) happens here, off
 * the thread that serves requests.
 */
import { parentPort } from 'node:worker_threads';
import type { EngramStore } from '../engram-store.js';
import {
  decodeLargeArrays,
  encodeLargeArrays,
  holdsChunkedArray,
  holdsLargeArray,
} from './chunked-arrays.js';
import { transferError } from './transferred-error.js';
import {
  type ReplyMessage,
  type RequestMessage,
  type StorePart,
  type StoreShape,
  storeParts,
  type WorkerStoreStart,
} from './worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('store-worker.ts runs only as a worker thread');

/** The caller's clock at the call being run, when it forwards one; the drivers read it through `clock`. */
let callTime: number | undefined;
const clock = () => new Date(callTime ?? Date.now());

async function openStore(start: WorkerStoreStart): Promise<EngramStore> {
  const clockOption = start.forwardedClock ? { clock } : {};
  if (start.driver === 'sqlite') {
    const { createSqliteStore } = await import('../sqlite/sqlite-store.js');
    return createSqliteStore({ ...(start.options as WorkerStoreStart<'sqlite'>['options']), ...clockOption });
  }
  const { createMemoryStore } = await import('../memory/memory-store.js');
  return createMemoryStore(clockOption);
}

/** Own and inherited method names of one part, so a driver's extras (`settled`) are reachable too. */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (let object: object | null = target; object && object !== Object.prototype; ) {
    for (const name of Object.getOwnPropertyNames(object)) {
      if (name !== 'constructor' && typeof (target as Record<string, unknown>)[name] === 'function') {
        names.add(name);
      }
    }
    object = Object.getPrototypeOf(object);
  }
  return [...names];
}

const stores = new Map<number, Record<StorePart, Record<string, unknown>>>();

async function open(start: WorkerStoreStart, store: number): Promise<StoreShape> {
  const opened = await openStore(start);
  const parts = {
    sessions: opened,
    memories: opened.memories,
    documents: opened.documents,
    jobs: opened.jobs,
  } as unknown as Record<StorePart, Record<string, unknown>>;
  stores.set(store, parts);
  return {
    driver: opened.driver,
    capabilities: opened.capabilities,
    memoryCapabilities: opened.memories.capabilities,
    methods: Object.fromEntries(
      storeParts.map((part) => [part, methodNames(parts[part])]),
    ) as StoreShape['methods'],
  };
}

/** Runs one call; the drivers read their clock synchronously when a call starts, so `callTime` is its own. */
function run(request: Extract<RequestMessage, { type: 'call' }>): unknown {
  const target = stores.get(request.store)?.[request.part];
  const method = target?.[request.method];
  if (typeof method !== 'function') {
    throw new TypeError(`Store ${request.store} has no method ${request.part}.${request.method}`);
  }
  callTime = request.now;
  const result = method.apply(target, request.args);
  if (request.part === 'sessions' && request.method === 'close') stores.delete(request.store);
  return result;
}

const post = (message: ReplyMessage, transfer: ArrayBuffer[] = []): void => {
  try {
    port.postMessage(message, transfer);
  } catch (error) {
    // A result or error detail that structured clone cannot copy: answer with that failure instead.
    port.postMessage({ type: 'error', id: message.id, error: transferError(error) } satisfies ReplyMessage);
  }
};

/** Answers with the result, its large arrays in chunks (encoded here: this thread need not yield). */
async function reply(id: number, value: unknown): Promise<void> {
  if (!holdsLargeArray(value)) return post({ type: 'result', id, value });
  const transfer: ArrayBuffer[] = [];
  const encoded = await encodeLargeArrays(value, transfer, Number.POSITIVE_INFINITY);
  post({ type: 'result', id, value: encoded }, transfer);
}

/** Decodes the large arrays the caller sent in chunks, then runs the call. */
async function runWithArguments(request: Extract<RequestMessage, { type: 'call' }>): Promise<unknown> {
  if (request.args.some(holdsChunkedArray)) {
    const args = await Promise.all(
      request.args.map((arg) => decodeLargeArrays(arg, Number.POSITIVE_INFINITY)),
    );
    return run({ ...request, args });
  }
  return run(request);
}

port.on('message', (request: RequestMessage) => {
  let pending: Promise<unknown>;
  try {
    pending = Promise.resolve(
      request.type === 'open' ? open(request.start, request.store) : runWithArguments(request),
    );
  } catch (error) {
    pending = Promise.reject(error);
  }
  pending
    .then((value) => reply(request.id, value))
    .catch((error: unknown) => post({ type: 'error', id: request.id, error: transferError(error) }));
});
