/**
 * engram's HTTP server under load: GET working memory (a session of --messages messages; the same URL
 * again and again, so mostly the response cache, and a fresh URL each time, so never), append
 * (POST /v1/working-memory/{id}/messages, one message, a session per connection) and long-term search
 * (POST /v1/long-term-memory/search over --memories memories; skipped with a note while the route
 * answers 404/405), against the bare Fastify "hello" route in the same run. The server runs in a
 * child process over a temporary SQLite file, authentication disabled, at each --log-levels level
 * (stdout discarded) and with each --store-threads placement of the SQLite store (`worker`, as
 * `engram serve` runs it by default, or `main`, in the request thread); a closed-loop load generator drives it over keep-alive loopback connections.
 * Prints req/s and latency per scenario and each scenario's ratio to the hello route measured just
 * before it (target for GET working memory: >= 70%).
 * Usage: node --import tsx bench/http.ts [--duration 5] [--connections 4] [--messages 20]
 *        [--memories 1000] [--rounds 2] [--log-levels silent,info] [--store-threads worker,main]
 *        [--scenarios health,get,get-uncached,append,search]
 * Profile the server: node --cpu-prof --cpu-prof-dir=prof --import tsx bench/http.ts --scenarios get
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngram } from '../src/engram.js';
import { createServer } from '../src/server/create-server.js';
import { logLevelSchema, type ServerConfig } from '../src/server/server-config.js';
import { createServerMetrics } from '../src/server/server-metrics.js';
import { instrumentStore } from '../src/stores/instrument-store.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { createWorkerStore } from '../src/stores/worker/worker-store.js';
import { machine, percentile, printTable, seedSession } from './bench-utilities.js';
import {
  answerCpuRequests,
  forkServer,
  type LoadOptions,
  load,
  type RequestSpec,
  type ServerProcess,
  send,
  serveHello,
} from './http-load.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  duration: { type: 'string', default: '5', check: 'number' },
  connections: { type: 'string', default: '4', check: 'number' },
  messages: { type: 'string', default: '20', check: 'number' },
  memories: { type: 'string', default: '1000', check: 'number' },
  rounds: { type: 'string', default: '2', check: 'number' },
  scenarios: {
    type: 'string',
    default: 'health,get,get-uncached,append,search',
    check: { listOf: ['health', 'get', 'get-uncached', 'append', 'search'] },
  },
  'log-levels': { type: 'string', default: 'silent,info', check: { listOf: logLevelSchema.options } },
  serve: { type: 'string', check: { oneOf: ['fastify', 'engram'] } },
  'log-level': { type: 'string', default: 'silent', check: { oneOf: logLevelSchema.options } },
  'store-threads': { type: 'string', default: 'worker,main', check: { listOf: ['worker', 'main'] } },
  'store-thread': { type: 'string', default: 'worker', check: { oneOf: ['worker', 'main'] } },
  db: { type: 'string' },
});

/** Words for the memories and queries, so that a search finds something. */
const words = [
  'travel',
  'budget',
  'weather',
  'Lisbon',
  'coffee',
  'train',
  'museum',
  'dinner',
  'beach',
  'hotel',
];
const wordAt = (index: number) => words[index % words.length] ?? 'memory';

/** The child process: engram over the SQLite file, seeded, listening on a free loopback port. */
async function serveEngram(databasePath: string, logLevel: ServerConfig['logLevel']): Promise<number> {
  // Wired as `engram serve` wires it: store calls and sources report to the served metrics.
  const metrics = createServerMetrics();
  const opened =
    values['store-thread'] === 'main'
      ? await createSqliteStore({ path: databasePath })
      : await createWorkerStore({ driver: 'sqlite', options: { path: databasePath } });
  const store = instrumentStore(opened, metrics.observeStore);
  const engram = await createEngram({
    store,
    sweepIntervalMs: 0,
    onTrace: (trace) => metrics.observeTrace(trace),
  });
  await seedSession(engram, 'bench-get', Number(values.messages));
  const memories = Array.from({ length: Number(values.memories) }, (_, index) => ({
    text: `Memory ${index}: the user mentioned ${wordAt(index)} and ${wordAt(index * 7 + 3)} plans.`,
  }));
  for (let start = 0; start < memories.length; start += 500) {
    await engram.memories.create('default', memories.slice(start, start + 500));
  }
  await engram.memories.idle('default'); // no background embedding during the runs
  const server = createServer({ engram, config: { port: 0, logLevel }, metrics });
  return (await server.listen()).port;
}

const appendBody = JSON.stringify({
  messages: [{ role: 'user', content: 'One more message about the trip.' }],
});
let uncached = 0;
const allScenarios: { key: string; name: string; next: (worker: number) => RequestSpec }[] = [
  // engram's own per-request work (auth check, request id, metrics, log line) without a store call.
  { key: 'health', name: 'GET /v1/health', next: () => ({ method: 'GET', path: '/v1/health' }) },
  {
    key: 'get',
    name: 'GET working memory',
    next: () => ({ method: 'GET', path: '/v1/working-memory/bench-get' }),
  },
  {
    // A fresh URL per request never hits the response cache: the cost of reading and rendering.
    key: 'get-uncached',
    name: 'GET working memory, uncached',
    next: () => ({ method: 'GET', path: `/v1/working-memory/bench-get?request=${uncached++}` }),
  },
  {
    key: 'append',
    name: 'POST append 1 message',
    next: (worker) => ({
      method: 'POST',
      path: `/v1/working-memory/bench-append-${worker}/messages`,
      body: appendBody,
    }),
  },
  {
    key: 'search',
    name: 'POST long-term search',
    next: (worker) => ({
      method: 'POST',
      path: '/v1/long-term-memory/search',
      body: JSON.stringify({ text: `${wordAt(worker)} plans`, limit: 10 }),
    }),
  },
];

/** Status of one request: 404/405 mean the route is not served (yet). */
async function probe(port: number, spec: RequestSpec): Promise<number> {
  const agent = new Agent();
  try {
    return (await send(agent, port, spec)).status;
  } finally {
    agent.destroy();
  }
}

type Row = {
  round: number;
  server: string;
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  cpu: number;
};

/**
 * A warm-up (JIT, caches), then the measured run, with the server's CPU microseconds per request:
 * unlike req/s, that barely moves with the load other processes put on a shared machine.
 */
async function measure(server: ServerProcess, next: (worker: number) => RequestSpec, options: LoadOptions) {
  await load(server.port, next, { ...options, seconds: Math.min(1, options.seconds) });
  const before = await server.cpu();
  const result = await load(server.port, next, options);
  return { ...result, cpu: ((await server.cpu()) - before) / result.requests };
}

async function main(): Promise<void> {
  if (values.serve !== undefined) {
    answerCpuRequests();
    // Exit normally on SIGTERM so that `--cpu-prof` writes the server's profile.
    process.once('SIGTERM', () => process.exit(0));
  }
  if (values.serve === 'fastify') {
    process.send?.((await serveHello('fastify')).port);
    return;
  }
  if (values.serve === 'engram') {
    process.send?.(await serveEngram(values.db ?? '', logLevelSchema.parse(values['log-level'])));
    return;
  }
  const options = { seconds: Number(values.duration), connections: Number(values.connections) };
  const rounds = Number(values.rounds);
  const logLevels = values['log-levels'].split(',').map((level) => logLevelSchema.parse(level));
  const storeThreads = values['store-threads'].split(',').map((thread) => {
    if (thread !== 'worker' && thread !== 'main') throw new Error(`--store-threads: unknown ${thread}`);
    return thread;
  });
  const script = process.argv[1] ?? '';
  console.log(
    `engram HTTP (${machine()}), ${options.connections} connections, ${options.seconds} s per scenario, ` +
      `${values.messages} messages in the GET session, ${values.memories} memories, ${rounds} rounds\n`,
  );
  const chosen = values.scenarios.split(',');
  const scenarios = allScenarios.filter((scenario) => chosen.includes(scenario.key));
  const rows: Row[] = [];
  const ratios = new Map<string, { rps: number; cpu: number }[]>();
  const notes = new Set<string>();
  for (let round = 1; round <= rounds; round++) {
    // The hello server stays up for the round and is measured right before each scenario: on a
    // shared machine the load drifts, so only a ratio of neighbouring measurements means much.
    const hello = await forkServer(script, ['--serve', 'fastify']);
    try {
      for (const [logLevel, storeThread] of logLevels.flatMap((level) =>
        storeThreads.map((thread) => [level, thread] as const),
      )) {
        const directory = mkdtempSync(join(tmpdir(), 'engram-bench-http-'));
        const args = [
          ...['--serve', 'engram', '--db', join(directory, 'engram.db'), '--log-level', logLevel],
          ...['--store-thread', storeThread],
        ];
        const server = await forkServer(script, [
          ...args,
          '--messages',
          values.messages,
          '--memories',
          values.memories,
        ]);
        try {
          for (const scenario of scenarios) {
            const status = await probe(server.port, scenario.next(0));
            if (status === 404 || status === 405) {
              notes.add(`${scenario.name}: skipped, the route answers ${status} (not served in this build)`);
              continue;
            }
            const bare = await measure(hello, () => ({ method: 'GET', path: '/hello' }), options);
            rows.push({
              round,
              server: 'bare Fastify',
              scenario: 'GET /hello',
              rps: bare.requestsPerSecond,
              ...bare,
            });
            const measured = await measure(server, scenario.next, options);
            const name = `engram (log ${logLevel}, store ${storeThread})`;
            rows.push({
              round,
              server: name,
              scenario: scenario.name,
              rps: measured.requestsPerSecond,
              ...measured,
            });
            const key = `${name}|${scenario.name}`;
            ratios.set(key, [
              ...(ratios.get(key) ?? []),
              { rps: measured.requestsPerSecond / bare.requestsPerSecond, cpu: bare.cpu / measured.cpu },
            ]);
          }
        } finally {
          await server.stop();
          rmSync(directory, { recursive: true, force: true });
        }
      }
    } finally {
      await hello.stop();
    }
  }
  printTable(
    ['round', 'server', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req'],
    rows.map((row) => [row.round, row.server, row.scenario, row.rps, row.p50, row.p99, row.cpu]),
  );
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = `${row.server}|${row.scenario}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const median = (group: Row[], key: 'rps' | 'p50' | 'p99' | 'cpu') =>
    percentile(
      group.map((row) => row[key]),
      50,
    );
  console.log(`\nMedians over ${rounds} rounds\n`);
  printTable(
    ['server', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req'],
    [...groups].map(([key, group]) => [
      ...key.split('|'),
      median(group, 'rps'),
      median(group, 'p50'),
      median(group, 'p99'),
      median(group, 'cpu'),
    ]),
  );
  console.log(
    '\nEach scenario against the bare hello measured just before it (medians over rounds): req/s as a\n' +
      'share of hello req/s (the target for GET working memory: >= 70%), and hello CPU/request as a\n' +
      "share of the scenario's (the req/s ratio a CPU-bound server would reach; steadier under load)\n",
  );
  const shares = (values: number[]) => `${(100 * percentile(values, 50)).toFixed(1)}%`;
  const perRound = (values: number[]) => values.map((value) => `${(100 * value).toFixed(0)}%`).join(' ');
  printTable(
    ['server', 'scenario', 'req/s share', 'per round', 'CPU share', 'per round'],
    [...ratios].map(([key, pairs]) => [
      ...key.split('|'),
      shares(pairs.map((pair) => pair.rps)),
      perRound(pairs.map((pair) => pair.rps)),
      shares(pairs.map((pair) => pair.cpu)),
      perRound(pairs.map((pair) => pair.cpu)),
    ]),
  );
  for (const note of notes) console.log(`Note: ${note}`);
}

await main();
