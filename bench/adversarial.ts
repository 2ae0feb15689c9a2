/**
 * Adversarial inputs against a real engram server while a client polls `/v1/health`, beside a
 * control (ordinary traffic: a short message appended and a context turn), and the upload alone of
 * the largest body (30 MB to a route that does not exist) and the download alone of a 1.7 MB
 * file the server keeps in memory (the floor of answers of about a megabyte): a message of
 * one long run without whitespace (append and PUT), a `(a+)+$` procedure trigger and a near-miss
 * message, a 4.9 MB Markdown document, PUTs of 100,000 and 1,000,000 messages, a GET of the
 * 100,000-message session (its answer: the messages the summary has not covered), a body over the
 * limit, a document 1 character over MAX_DOCUMENT_CHARS (4xx with a small error body: the
 * answer's size is reported), a memory prompt over 100 memories of 20,000 characters (the memory
 * limit) under a 128k-token window, and the history of a memory edited 300 times at 20,000
 * characters a version, and an MCP search of 100 such memories (an SDK client on `/mcp`). For each: the adversarial request's outcome and time, the health requests' p50/p99/max,
 * and the server's event-loop delay p99/max (perf_hooks.monitorEventLoopDelay in the server
 * process), next to a quiet baseline (health polling alone) measured in the same run, first and
 * last; after each answer, health is polled on for --after-seconds (the background work the input
 * left: two more columns); before each input, the server is given up to --settle-seconds to finish the previous one's
 * background work. An input answered in a fraction of a second is sent again, each time to a
 * settled server, until its windows hold as many health requests as the quiet baseline's (at most
 * --max-sends times), and those requests are pooled (see `measure`); the 100,000-message PUT and
 * the document upload, whose windows last seconds, once. One poller (a worker thread, warm) serves
 * every window. Goal: no adversarial input raises health p99 above 5× the quiet baseline.
 * The server runs in a child process over a temporary SQLite file (in a store thread, as `engram
 * serve` runs it, unless --store-thread main), authentication off, its body
 * limit raised (--body-limit) so that the large inputs reach the server's own limits.
 * Usage: node --expose-gc --import tsx bench/adversarial.ts [--quiet-seconds 3] [--run-chars 900000]
 *        [--document-mb 4.9] [--health-interval-ms 5] [--body-limit 40000000] [--repeat 3]
 *        [--store-thread worker|main] [--settle-seconds 20] [--after-seconds 2] [--max-sends 100]
 *        [--scenarios ordinary-turn,no-space-append,no-space-put,redos,big-document,put-100k,get-100k,put-1m,upload-floor,
 *        upload-floor-run,download-floor,oversize-body,over-max-document,long-memories-prompt,long-history,
 *        long-message-context,mcp-long-search]
 */

import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createEngram } from '../src/engram.js';
import { createServer } from '../src/server/create-server.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { createWorkerStore } from '../src/stores/worker/worker-store.js';
import type { Context } from './adversarial-calls.js';
import { allScenarios, createScenarios } from './adversarial-scenarios.js';
import { machine, percentile, printTable } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';
import { startHealthPoller } from './poll-health.js';

const values = parseBenchArguments({
  'quiet-seconds': { type: 'string', default: '3', check: 'number' },
  'run-chars': { type: 'string', default: '900000', check: 'number' },
  'document-mb': { type: 'string', default: '4.9', check: 'number' },
  'health-interval-ms': { type: 'string', default: '5', check: 'number' },
  'body-limit': { type: 'string', default: '40000000', check: 'number' },
  repeat: { type: 'string', default: '3', check: 'number' },
  'store-thread': { type: 'string', default: 'worker', check: { oneOf: ['worker', 'main'] } },
  'settle-seconds': { type: 'string', default: '20', check: 'number' },
  'after-seconds': { type: 'string', default: '2', check: 'number' },
  'max-sends': { type: 'string', default: '100', check: 'number' },
  scenarios: { type: 'string', default: allScenarios.join(','), check: { listOf: allScenarios } },
  serve: { type: 'boolean', default: false },
});

/** The child: engram over a temporary SQLite file, with an event-loop delay histogram over IPC. */
async function serve(): Promise<void> {
  const path = join(mkdtempSync(join(tmpdir(), 'engram-adv-')), 'engram.db');
  // As `engram serve` opens it: in a store thread by default (storeThread), or in this thread.
  const store =
    values['store-thread'] === 'main'
      ? await createSqliteStore({ path })
      : await createWorkerStore({ driver: 'sqlite', options: { path } });
  const engram = await createEngram({ store, sweepIntervalMs: 0 });
  const server = createServer({
    engram,
    config: { port: 0, logLevel: 'silent', bodyLimitBytes: Number(values['body-limit']) },
  });
  const { port } = await server.listen();
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  process.on('message', (message) => {
    if (message === 'reset') delay.reset();
    if (message === 'delay') {
      process.send?.({ p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 });
    }
  });
  process.once('SIGTERM', () => process.exit(0));
  process.send?.({ port });
}

/** Asks the child for something over IPC and waits for its answer. */
function ask(child: ChildProcess, message: string): Promise<Record<string, number>> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as Record<string, number>));
    child.send(message);
  });
}

async function main(): Promise<void> {
  if (values.serve) return serve();
  const script = process.argv[1] ?? '';
  const serverArgs = ['--body-limit', values['body-limit'], '--store-thread', values['store-thread']];
  const child = fork(script, ['--serve', ...serverArgs], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const { port } = await new Promise<{ port: number }>((resolve) =>
    child.once('message', (m) => resolve(m as never)),
  );
  const context: Context = { base: `http://127.0.0.1:${port}`, child };
  const chosen = values.scenarios.split(',') as (typeof allScenarios)[number][];
  const scenarios = createScenarios(values);
  console.log(
    `engram adversarial inputs (${machine()}, load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}), ${new Date().toISOString().slice(0, 10)}, health polled every ` +
      `${values['health-interval-ms']} ms, body limit ${values['body-limit']} bytes, ` +
      `SQLite store in the ${values['store-thread'] === 'main' ? 'request thread' : 'store thread'}\n`,
  );
  const poller = await startHealthPoller(port, Number(values['health-interval-ms']));
  const rows: (string | number)[][] = [];
  let baseline = Number.NaN;
  let baselineRequests = 0;
  /**
   * Measures `action`, sent again (each time after `settle()`, so that each send meets a quiet
   * server, as one adversarial request would) until the health requests of the sends' windows are
   * as many as the quiet baseline's, or `maxSends` sends: a percentile of the pooled requests is
   * then one of as many requests as the baseline's p99. One send is answered within a dozen
   * health requests, whose "p99" is their largest, while the quiet server itself answers one
   * request in a few hundred in 3–6× its p99 on these two cores. The loop delay is the largest of
   * the sends' own p99s and maxima (the histograms of separate windows cannot be pooled); the
   * time, the sends' median.
   */
  const measure = async (label: string, action: (send: number) => Promise<string>, maxSends = 1) => {
    const latencies: number[] = [];
    const times: number[] = [];
    const outcomes = new Set<string>();
    const delay = { p99: 0, max: 0 };
    let sends = 0;
    while (sends < maxSends && (sends === 0 || latencies.length < baselineRequests)) {
      if (sends > 0) await settle();
      child.send('reset');
      const window = poller.window();
      const started = performance.now();
      outcomes.add(await action(sends));
      times.push((performance.now() - started) / 1_000);
      latencies.push(...(await window.stop()));
      const sendDelay = await ask(child, 'delay');
      delay.p99 = Math.max(delay.p99, sendDelay.p99 ?? Number.NaN);
      delay.max = Math.max(delay.max, sendDelay.max ?? Number.NaN);
      sends++;
    }
    const p99 = percentile(latencies, 99);
    if (Number.isNaN(baseline)) {
      baseline = p99;
      baselineRequests = latencies.length;
    }
    // The background work an input leaves (a summary job, an extraction) holds other requests
    // too: health is polled on for --after-seconds once the (last) answer has come.
    let after = ['-', '-'];
    if (!label.startsWith('quiet')) {
      const afterWindow = poller.window();
      await new Promise((resolve) => setTimeout(resolve, Number(values['after-seconds']) * 1_000));
      const afterLatencies = await afterWindow.stop();
      if (afterLatencies.length > 0) {
        after = [percentile(afterLatencies, 99).toPrecision(3), Math.max(...afterLatencies).toPrecision(3)];
      }
    }
    rows.push([
      sends > 1 ? `${label} (×${sends})` : label,
      [...outcomes].join(' / '),
      percentile(times, 50),
      latencies.length,
      percentile(latencies, 50),
      p99,
      Math.max(...latencies),
      delay.p99,
      delay.max,
      `${(p99 / baseline).toFixed(1)}×`,
      ...after,
    ]);
  };
  // Before each input, wait (up to --settle-seconds) until health answers as it did at the quiet
  // start again (p99 of a 0.5 s window within 2× of it): the previous input's background jobs (a
  // 100,000-message session's summary) would otherwise be counted against the next input.
  const settle = async () => {
    const deadline = performance.now() + Number(values['settle-seconds']) * 1_000;
    while (performance.now() < deadline) {
      const window = poller.window();
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (percentile(await window.stop(), 99) <= 2 * baseline) return;
    }
  };
  const quiet = () =>
    new Promise<string>((resolve) => setTimeout(() => resolve('-'), Number(values['quiet-seconds']) * 1_000));
  try {
    await measure('quiet baseline (start)', quiet);
    for (const key of chosen) {
      const scenario = scenarios[key];
      const body = await scenario.setup?.(context);
      // The garbage of building the body is this process's, not the server's: collected (with
      // --expose-gc, as `npm run bench:adversarial` runs) before the server is measured.
      (globalThis as { gc?: () => void }).gc?.();
      await settle();
      const maxSends = scenario.once ? 1 : Number(values['max-sends']);
      await measure(scenario.label, (send) => scenario.action(context, body, send), maxSends);
    }
    await settle();
    await measure('quiet baseline (end)', quiet);
  } finally {
    await context.mcp?.close();
    await poller.close();
    child.kill();
  }
  printTable(
    [
      'input',
      'status',
      's',
      'health reqs',
      'health p50 ms',
      'health p99 ms',
      'health max ms',
      'loop delay p99 ms',
      'loop delay max ms',
      'p99 / quiet',
      `next ${values['after-seconds']} s: health p99 ms`,
      `next ${values['after-seconds']} s: health max ms`,
    ],
    rows,
  );
}

await main();
