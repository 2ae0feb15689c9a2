import type { Worker } from 'node:worker_threads';
import { EngramError } from '../../core/errors.js';
import { startModuleWorker } from '../../engine/start-module-worker.js';
import { BodyBytes, buffersOf } from '../body-bytes.js';
import type { PutJob, PutJobResult } from './working-memory-put-protocol.js';

/** Bodies prepared by a worker in this process, for tests and diagnostics. */
let preparedCount = 0;
/** How many large PUT bodies a worker has read and prepared in this process. */
export const preparedOffThread = (): number => preparedCount;

/** A worker's answer, the body's bytes being moved back with a refusal. */
export type PreparedPut = Extract<PutJobResult, { ok: true }> | { ok: false; body: BodyBytes };

/** Reads and prepares large PUT bodies in a worker thread; see `createPutThread`. */
export interface PutThread {
  /** The body read, validated and prepared by the worker, or handed back for the request thread. */
  prepare(body: BodyBytes, job: Omit<PutJob, 'id' | 'segments'>): Promise<PreparedPut>;
  /** Whether a worker runs (one does while a body is being prepared). */
  running(): boolean;
  close(): Promise<void>;
}

/**
 * A worker thread that reads, validates and prepares large working-memory PUT bodies (100,000
 * messages: parse, AMS validation, mapping, ids, dates and token counts, then the echo), so that
 * the request thread never decodes the body or holds its message objects: it moves the bytes in,
 * and moves the encoded messages on to the store (`putPrepared`) and the echo out. Each of those
 * steps allocated per message on the request thread, and the collector's pauses while they all
 * lived (15–35 ms, the scavenger's helper threads waiting for the machine's two cores) held every
 * other request. A body that does not read, validate and prepare without fault comes back, and
 * the request thread reads it as before, for the exact error. Started for a large PUT and stopped
 * when no other one is being prepared.
 */
export function createPutThread(): PutThread {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<
    number,
    { resolve: (result: PreparedPut) => void; reject: (error: Error) => void }
  >();
  const failAll = (error: Error) => {
    for (const request of pending.values()) request.reject(error);
    pending.clear();
    worker = undefined;
  };
  const start = (): Worker => {
    const started = startModuleWorker(import.meta.url, 'working-memory-put-worker');
    started.unref();
    started.on('message', (result: PutJobResult) => {
      const request = pending.get(result.id);
      pending.delete(result.id);
      if (pending.size === 0) {
        // Stopped once idle: its heap, which held the body's messages, is dropped whole. Left
        // running, the collector cleared it seconds later on V8's helper threads, beside the
        // request thread on two cores. The next large body starts another (~0.5 s, the token
        // counter's tables most of it), which is why only bodies of WORKER_BODY_BYTES come here.
        if (worker === started) worker = undefined;
        void started.terminate();
      }
      if (!request) return;
      if (result.ok) {
        preparedCount++;
        request.resolve(result);
      } else {
        request.resolve({ ok: false, body: new BodyBytes(result.segments) });
      }
    });
    const failed = (reason: string) =>
      failAll(
        new EngramError('internal', 'internal', `The thread preparing large PUT bodies stopped: ${reason}`),
      );
    started.on('error', (error) => failed(error.message));
    started.on('exit', (code) => {
      if (worker === started) failed(`exit code ${code}`);
    });
    return started;
  };
  return {
    prepare(body, job) {
      worker ??= start();
      const thread = worker;
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        thread.ref();
        const message: PutJob = { ...job, id, segments: body.segments };
        thread.postMessage(message, buffersOf(body.segments));
      });
    },
    running: () => worker !== undefined,
    async close() {
      const stopping = worker;
      worker = undefined;
      failAll(new EngramError('internal', 'internal', 'The server is closing'));
      await stopping?.terminate();
    },
  };
}
