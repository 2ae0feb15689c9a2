// Worker thread: reads and prepares a large working-memory PUT body (see working-memory-put-thread.ts).
import { parentPort } from 'node:worker_threads';
import type { StoredMessage } from '../../core/schemas/message.js';
import { loadTokenCounter } from '../../core/tokens/token-counter.js';
import { encodeMessages, prepareSessionWrite } from '../../engine/sessions/prepare-session-write.js';
import { buffersOf, decodeSegments } from '../body-bytes.js';
import type { JsonBodySource } from '../read-json-body.js';
import { serializeListItems } from '../serialize-in-slices.js';
import { fitContextWindow } from './fit-context-window.js';
import { readPutBody } from './read-put-body.js';
import { toAmsMessage, toSessionInput } from './working-memory-mapper.js';
import type { PutJob, PutJobResult } from './working-memory-put-protocol.js';

/** This thread runs one job at a time and has no other requests to let through: it never pauses. */
const noPause = () => undefined;

/** The route's read, map and the engine's preparation of a PUT, as on the request thread. */
async function prepare(job: PutJob): Promise<{ result: PutJobResult; transfer: ArrayBuffer[] }> {
  const text = (await decodeSegments(job.segments, Number.POSITIVE_INFINITY, noPause)).join('');
  const source = { body: text, headers: { 'content-type': job.contentType } } as JsonBodySource;
  const { body, undated } = await readPutBody(source, noPause);
  const counter = await loadTokenCounter(job.encoding);
  const { messages, ...write } = await prepareSessionWrite(
    toSessionInput(body, body.messages),
    counter,
    new Date(job.now),
  );
  const stored = messages as StoredMessage[];
  const usage =
    job.window === null ? null : (await fitContextWindow(stored, job.window, { truncate: false })).usage;
  const echo = serializeListItems(stored, toAmsMessage);
  const transfer = echo.map((chunk) => chunk.buffer as ArrayBuffer);
  const encoded = await encodeMessages(messages, transfer);
  const result: PutJobResult = {
    id: job.id,
    ok: true,
    namespace: body.namespace,
    userId: body.user_id,
    undated,
    write,
    messages: encoded,
    usage,
    echo,
  };
  return { result, transfer };
}

const port = parentPort;
if (!port) throw new Error('working-memory-put-worker.ts runs as a worker thread');
port.on('message', (job: PutJob) => {
  prepare(job).then(
    ({ result, transfer }) => port.postMessage(result, transfer),
    () => {
      const refused: PutJobResult = { id: job.id, ok: false, segments: job.segments };
      port.postMessage(refused, buffersOf(job.segments));
    },
  );
});
