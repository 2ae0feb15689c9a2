/**
 * The extractive summary (no LLM) that the summary job builds after a large write: wall time for
 * a batch of short messages and for one long message without punctuation, with the young- and
 * old-generation garbage-collection pauses during it (every object a step keeps alive is copied by
 * the young collector, in a pause of the event loop), and the longest single step of the
 * generator (what one turn of the event loop runs between yields).
 * Usage: node --expose-gc --import tsx bench/extractive-summary.ts [--messages 100000]
 *        [--long-chars 900000] [--rounds 3]
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import {
  extractiveSummarySteps,
  type SummarizedMessage,
} from '../src/core/summarization/extractive-summary.js';
import { machine, printTable } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  messages: { type: 'string', default: '100000', check: 'number' },
  'long-chars': { type: 'string', default: '900000', check: 'number' },
  rounds: { type: 'string', default: '3', check: 'number' },
});

const topics =
  'flight Lisbon peanuts booked window seat allergic daughter March meeting project deadline'.split(' ');
const batch: SummarizedMessage[] = Array.from({ length: Number(values.messages) }, (_, index) => ({
  role: index % 2 ? 'assistant' : 'user',
  content: `message ${index} about ${topics[index % topics.length]} and ${topics[(index * 7) % topics.length]}. Thanks!`,
}));
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const long: SummarizedMessage[] = [
  {
    role: 'user',
    content: Array.from(
      { length: Number(values['long-chars']) },
      (_, index) => alphabet[(index * 7919) % 64],
    ).join(''),
  },
];

/** Runs the summary step by step, as the summary job drains it, timing the longest step. */
async function summarize(messages: readonly SummarizedMessage[]) {
  const pauses = { minor: 0, major: 0, longest: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.minor += entry.duration;
      else pauses.major += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const started = performance.now();
  const steps = extractiveSummarySteps(null, messages);
  let longestStep = 0;
  for (;;) {
    const stepStarted = performance.now();
    const step = steps.next();
    longestStep = Math.max(longestStep, performance.now() - stepStarted);
    if (step.done) break;
  }
  const ms = performance.now() - started;
  // GC entries are delivered after the work that caused them.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return { ms, longestStep, ...pauses };
}

const rows: (string | number)[][] = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const [label, messages] of [
    [`${batch.length} short messages`, batch],
    [`1 message of ${long[0]?.content.length} chars, no punctuation`, long],
  ] as const) {
    (globalThis as { gc?: () => void }).gc?.();
    const result = await summarize(messages);
    rows.push([label, round, result.ms, result.longestStep, result.minor, result.major]);
  }
}
console.log(`Extractive summary (${machine()}), ${new Date().toISOString().slice(0, 10)}\n`);
printTable(['input', 'round', 'ms', 'longest step ms', 'young GC ms', 'old GC ms'], rows);
