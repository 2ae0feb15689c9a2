/**
 * engram's HTTP server under load: GET working memory (a session of --messages messages), append
 * (POST /v1/working-memory/{id}/messages, one message, a session per connection) and long-term search
 * (POST /v1/long-term-memory/search over --memories memories; skipped with a note while the route
 * answers 404/405), against the bare Fastify "hello" route in the same run. The server runs in a
 * child process over a temporary SQLite file, authentication disabled, at each --log-levels level
 * (stdout discarded); a closed-loop load generator drives it over keep-alive loopback connections.
 * Prints req/s and latency per scenario and the ratio GET working memory / hello (target >= 70%).
 * Usage: node --import tsx bench/http.ts [--duration 5] [--connections 4] [--messages 20]
 *        [--memories 1000] [--rounds 2] [--log-levels silent,info] [--scenarios health,get,append,search]
 * Profile the server: node --cpu-prof --cpu-prof-dir=prof --import tsx bench/http.ts --scenarios get
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createEngram } from '../src/engram.js';
import { createServer } from '../src/server/create-server.js';
import { logLevelSchema, type ServerConfig } from '../src/server/server-config.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { machine, percentile, printTable, seedSession } from './bench-utilities.js';
import { forkServer, type LoadOptions, load, type RequestSpec, send, serveHello } from './http-load.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '4' },
    messages: { type: 'string', default: '20' },
    memories: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '2' },
    scenarios: { type: 'string', default: 'health,get,append,search' },
    'log-levels': { type: 'string', default: 'silent,info' },
    serve: { type: 'string' },
    'log-level': { type: 'string', default: 'silent' },
    db: { type: 'string' },
  },
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
  const store = await createSqliteStore({ path: databasePath });
  const engram = await createEngram({ store, sweepIntervalMs: 0 });
  await seedSession(engram, 'bench-get', Number(values.messages));
  const memories = Array.from({ length: Number(values.memories) }, (_, index) => ({
    text: `Memory ${index}: the user mentioned ${wordAt(index)} and ${wordAt(index * 7 + 3)} plans.`,
  }));
  for (let start = 0; start < memories.length; start += 500) {
    await engram.memories.create('default', memories.slice(start, start + 500));
  }
  await engram.memories.idle('default'); // no background embedding during the runs
  const server = createServer({ engram, config: { port: 0, logLevel } });
  return (await server.listen()).port;
}

const appendBody = JSON.stringify({
  messages: [{ role: 'user', content: 'One more message about the trip.' }],
});
const allScenarios: { key: string; name: string; next: (worker: number) => RequestSpec }[] = [
  // engram's own per-request work (auth check, request id, metrics, log line) without a store call.
  { key: 'health', name: 'GET /v1/health', next: () => ({ method: 'GET', path: '/v1/health' }) },
  {
    key: 'get',
    name: 'GET working memory',
    next: () => ({ method: 'GET', path: '/v1/working-memory/bench-get' }),
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

type Row = { round: number; server: string; scenario: string; rps: number; p50: number; p99: number };

async function measure(port: number, next: (worker: number) => RequestSpec, options: LoadOptions) {
  await load(port, next, { ...options, seconds: Math.min(1, options.seconds) }); // warm-up (JIT, caches)
  return load(port, next, options);
}

async function main(): Promise<void> {
  if (values.serve === 'fastify') {
    process.send?.((await serveHello('fastify')).port);
    return;
  }
  if (values.serve === 'engram') {
    // Exit normally on SIGTERM so that `--cpu-prof` (NODE_OPTIONS) writes the server's profile.
    process.once('SIGTERM', () => process.exit(0));
    process.send?.(await serveEngram(values.db ?? '', logLevelSchema.parse(values['log-level'])));
    return;
  }
  const options = { seconds: Number(values.duration), connections: Number(values.connections) };
  const rounds = Number(values.rounds);
  const logLevels = values['log-levels'].split(',').map((level) => logLevelSchema.parse(level));
  const script = process.argv[1] ?? '';
  console.log(
    `engram HTTP (${machine()}), ${options.connections} connections, ${options.seconds} s per scenario, ` +
      `${values.messages} messages in the GET session, ${values.memories} memories, ${rounds} rounds\n`,
  );
  const chosen = values.scenarios.split(',');
  const scenarios = allScenarios.filter((scenario) => chosen.includes(scenario.key));
  const rows: Row[] = [];
  const notes = new Set<string>();
  for (let round = 1; round <= rounds; round++) {
    const hello = await forkServer(script, ['--serve', 'fastify']);
    const result = await measure(hello.port, () => ({ method: 'GET', path: '/hello' }), options);
    rows.push({
      round,
      server: 'bare Fastify',
      scenario: 'GET /hello',
      rps: result.requestsPerSecond,
      ...result,
    });
    await hello.stop();
    for (const logLevel of logLevels) {
      const directory = mkdtempSync(join(tmpdir(), 'engram-bench-http-'));
      const args = ['--serve', 'engram', '--db', join(directory, 'engram.db'), '--log-level', logLevel];
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
          const measured = await measure(server.port, scenario.next, options);
          const name = `engram (log ${logLevel})`;
          rows.push({
            round,
            server: name,
            scenario: scenario.name,
            rps: measured.requestsPerSecond,
            ...measured,
          });
        }
      } finally {
        await server.stop();
        rmSync(directory, { recursive: true, force: true });
      }
    }
  }
  printTable(
    ['round', 'server', 'scenario', 'req/s', 'p50 ms', 'p99 ms'],
    rows.map((row) => [row.round, row.server, row.scenario, row.rps, row.p50, row.p99]),
  );
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = `${row.server}|${row.scenario}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const median = (group: Row[], key: 'rps' | 'p50' | 'p99') =>
    percentile(
      group.map((row) => row[key]),
      50,
    );
  console.log(`\nMedians over ${rounds} rounds\n`);
  printTable(
    ['server', 'scenario', 'req/s', 'p50 ms', 'p99 ms'],
    [...groups].map(([key, group]) => [
      ...key.split('|'),
      median(group, 'rps'),
      median(group, 'p50'),
      median(group, 'p99'),
    ]),
  );
  const helloRate = median(groups.get('bare Fastify|GET /hello') ?? [], 'rps');
  console.log('');
  for (const logLevel of logLevels) {
    const rate = median(groups.get(`engram (log ${logLevel})|GET working memory`) ?? [], 'rps');
    console.log(
      `GET working memory / hello (log ${logLevel}): ${((100 * rate) / helloRate).toFixed(1)}% (target >= 70%)`,
    );
  }
  for (const note of notes) console.log(`Note: ${note}`);
}

await main();
