/**
 * The request thread's own work for a PUT of many messages, without the server or a client:
 * reading the body (parsed item by item, validated and mapped, as the route does), the engine's
 * put (each message validated and prepared, then written by SQLite in a store thread, as
 * `engram serve` runs it; `--store memory` keeps them in this thread's memory store instead) and
 * the echo (the answer serialized in slices), with the young-generation collections (scavenges)
 * that fall on this thread in each step. `bench:adversarial` measures what a client sees of the same PUT; this separates the
 * steps and the collector, which that bench's event-loop delay lumps together. The first run warms
 * the code up and is not reported.
 *
 * `--path worker` (the default) takes the way a server takes a body of 4 MB or more: the body's
 * bytes read, validated and prepared by the PUT worker thread, `putPrepared`, and the worker's
 * echo written around the session's fields; `--path thread` the request-thread way (the one a
 * faulty body still takes).
 *
 * Usage: node --expose-gc --import tsx bench/large-put.ts [--messages 100000] [--runs 5]
 *        [--store worker|memory] [--path worker|thread]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { createEventLoopSlicer } from '../src/core/event-loop-slicer.js';
import type { StoredMessage } from '../src/core/schemas/message.js';
import { createEngram } from '../src/engram.js';
import { toAmsMessage, toPutMessageInput, toSessionInput } from '../src/server/ams/working-memory-mapper.js';
import { createPutThread } from '../src/server/ams/working-memory-put-thread.js';
import { amsWorkingMemoryBodyInSlices } from '../src/server/ams/working-memory-schemas.js';
import { BodyBytes } from '../src/server/body-bytes.js';
import { readBodyMappingItems } from '../src/server/request-parts.js';
import { serializeAroundList, serializeInSlices } from '../src/server/serialize-in-slices.js';
import { createMemoryStore } from '../src/stores/memory/memory-store.js';
import { createWorkerStore } from '../src/stores/worker/worker-store.js';
import { shortMessages } from './adversarial-inputs.js';
import { machine, percentile, printTable } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  messages: { type: 'string', default: '100000', check: 'number' },
  runs: { type: 'string', default: '5', check: 'number' },
  store: { type: 'string', default: 'worker', check: { oneOf: ['worker', 'memory'] } },
  path: { type: 'string', default: 'worker', check: { oneOf: ['worker', 'thread'] } },
});
const count = Number(values.messages);
const runs = Number(values.runs);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('Run with node --expose-gc (npm run bench:large-put does)');

// What the route reads: the body's text, as the server's body parser leaves it (the same body as
// bench:adversarial's PUT of 100,000 messages).
const request = {
  body: JSON.stringify(shortMessages(count)),
  headers: { 'content-type': 'application/json' },
} as unknown as Parameters<typeof readBodyMappingItems>[0];

const bodyBytes = Buffer.from(request.body as string);
const putThread = createPutThread();

const store =
  values.store === 'memory'
    ? createMemoryStore()
    : await createWorkerStore({
        driver: 'sqlite',
        options: { path: join(mkdtempSync(join(tmpdir(), 'engram-large-put-')), 'engram.db') },
      });
const engram = await createEngram({ store, sweepIntervalMs: 0 });

let scavenges: { at: number; ms: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { detail } = entry as unknown as { detail?: { kind?: number } };
    // kind 1: a young-generation collection (NODE_PERFORMANCE_GC_MINOR).
    if (detail?.kind === 1) scavenges.push({ at: entry.startTime, ms: entry.duration });
  }
}).observe({ entryTypes: ['gc'] });

const steps = ['read body', 'engine put', 'echo'] as const;
/** Each step's times and the scavenges that fell in it, over the reported runs. */
const perStep = steps.map(() => ({ ms: [] as number[], pauses: [] as number[] }));
for (let run = 0; run <= runs; run++) {
  gc();
  scavenges = [];
  const ref = { sessionId: `large-put-${run}`, namespace: null, userId: null, tenantId: 'default' };
  const slicer = createEventLoopSlicer();
  const marks = [performance.now()];
  if (values.path === 'worker') {
    // The body as the server receives it: chunks of 64 KB, each owning its memory.
    const received = new BodyBytes();
    for (let at = 0; at < bodyBytes.length; at += 65_536) {
      received.append(new Uint8Array(bodyBytes.subarray(at, at + 65_536)));
    }
    marks[0] = performance.now();
    const { encoding, now } = engram.sessions.preparation();
    const contentType = 'application/json';
    const prepared = await putThread.prepare(received, {
      contentType,
      encoding,
      now: now.getTime(),
      window: null,
    });
    if (!prepared.ok) throw new Error('The worker refused the body');
    marks.push(performance.now());
    const { session } = await engram.sessions.putPrepared(ref, { ...prepared, encoding });
    marks.push(performance.now());
    await serializeAroundList({ messages: [], ...session }, 'messages', prepared.echo);
    marks.push(performance.now());
  } else {
    const body = await readBodyMappingItems(request, amsWorkingMemoryBodyInSlices, slicer.pause, (message) =>
      toPutMessageInput(message),
    );
    marks.push(performance.now());
    const session = await engram.sessions.put(ref, toSessionInput(body, body.messages));
    marks.push(performance.now());
    await serializeInSlices<StoredMessage>(
      { messages: session.messages },
      'messages',
      toAmsMessage,
      slicer.pause,
    );
    marks.push(performance.now());
  }
  // The observer reports after the fact: let the last entries arrive.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await engram.sessions.delete(ref);
  if (run === 0) continue;
  for (const [index, kept] of perStep.entries()) {
    const [start, end] = [marks[index] as number, marks[index + 1] as number];
    kept.ms.push(end - start);
    for (const pause of scavenges) if (pause.at >= start && pause.at < end) kept.pauses.push(pause.ms);
  }
}
const rows = perStep.map(({ ms, pauses }, index) => {
  const total = pauses.reduce((sum, pause) => sum + pause, 0);
  return [
    steps[index] as string,
    percentile(ms, 50),
    Math.min(...ms),
    Math.max(...ms),
    pauses.length / runs,
    total / runs,
    pauses.length ? percentile(pauses, 50) : 0,
    pauses.length ? Math.max(...pauses) : 0,
  ];
});
console.log(
  `engram large PUT, request thread only (${machine()}), ${count} messages, ${values.store} store, ${values.path} path, ${runs} runs after one warm-up\n`,
);
printTable(
  [
    'step',
    'ms p50',
    'ms min',
    'ms max',
    'scavenges / run',
    'scavenge ms / run',
    'scavenge p50 ms',
    'scavenge max ms',
  ],
  rows,
);
process.exit(0);
