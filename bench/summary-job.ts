/**
 * The summary job after a large write, end to end: a session of N short messages in the store
 * `engram serve` uses (SQLite in its own thread) or the memory store, summarized by the session
 * summarizer without an LLM (read, cut, extractive summary, recorded). Reports the job's wall
 * time, the event loop's gaps meanwhile (a 1 ms timer: what a `/v1/health` request would wait), the
 * garbage collector's pauses, and the most messages one store read returned.
 * Usage: node --expose-gc --import tsx bench/summary-job.ts [--messages 100000] [--runs 4]
 *        [--store worker|memory]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { createSessionOperations } from '../src/engine/sessions/session-operations.js';
import { createSessionSummarizer } from '../src/engine/sessions/session-summarizer.js';
import { createMemoryStore } from '../src/stores/memory/memory-store.js';
import { createWorkerStore } from '../src/stores/worker/worker-store.js';
import { machine, percentile, printTable } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  messages: { type: 'string', default: '100000', check: 'number' },
  runs: { type: 'string', default: '4', check: 'number' },
  store: { type: 'string', default: 'worker', check: { oneOf: ['worker', 'memory'] } },
});
const count = Number(values.messages);

const store =
  values.store === 'memory'
    ? createMemoryStore()
    : await createWorkerStore({
        driver: 'sqlite',
        options: { path: join(mkdtempSync(join(tmpdir(), 'engram-summary-job-')), 'engram.db') },
      });
// Sessions alone, without the engram write path: no background job races the measured one.
const sessions = createSessionOperations(
  store,
  { encoding: 'o200k_base', count: (text) => Math.ceil(text.length / 4) },
  () => new Date(),
);
// The window of the model AMS clients name most (128k tokens), engram's default policy.
const summarizer = createSessionSummarizer({
  store,
  sessions,
  policy: { contextWindow: 128_000, threshold: 0.7, keepRecent: 0.3 },
});

let largestRead = 0;
const readMessages = store.readMessages.bind(store);
store.readMessages = async (key, query) => {
  const messages = await readMessages(key, query);
  largestRead = Math.max(largestRead, messages.length);
  return messages;
};

const pauses = { minor: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.minor += entry.duration;
    else pauses.major += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

const topics = 'flight Lisbon peanuts booked window seat allergic daughter March meeting'.split(' ');
const now = new Date().toISOString();
const rows: (string | number)[][] = [];
for (let run = 1; run <= Number(values.runs); run++) {
  const sessionId = `session-${run}`;
  await sessions.put(
    { sessionId },
    {
      messages: Array.from({ length: count }, (_, index) => ({
        role: index % 2 ? ('assistant' as const) : ('user' as const),
        content: `message ${index} about ${topics[index % topics.length]}.`,
        createdAt: now,
      })),
    },
  );
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const gaps: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const at = performance.now();
    gaps.push(at - last);
    last = at;
  }, 1);
  pauses.minor = 0;
  pauses.major = 0;
  largestRead = 0;
  const started = performance.now();
  const outcome = await summarizer.summarize({ sessionId });
  const ms = performance.now() - started;
  clearInterval(timer);
  // GC entries are delivered after the work that caused them.
  await new Promise((resolve) => setTimeout(resolve, 50));
  rows.push([
    run,
    outcome.status === 'summarized' ? outcome.messages : outcome.reason,
    ms,
    percentile(gaps, 99),
    Math.max(...gaps),
    gaps.filter((gap) => gap > 10).length,
    pauses.minor,
    pauses.major,
    largestRead,
  ]);
}
await store.close();
console.log(
  `Summary job over ${count} messages, ${values.store} store (${machine()}), ${new Date().toISOString().slice(0, 10)}\n`,
);
printTable(
  [
    'run',
    'messages folded',
    'job ms',
    'loop gap p99 ms',
    'loop gap max ms',
    'gaps > 10 ms',
    'young GC ms',
    'old GC ms',
    'largest read (messages)',
  ],
  rows,
);
