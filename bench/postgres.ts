/**
 * PostgreSQL specifics: database round trips per operation (counted by the driver: every query,
 * BEGIN and COMMIT is one), and HTTP throughput of GET working memory and of appends with one
 * `engram serve` process and with two on the same database (clients spread over them).
 *
 * Append latency at 1k vs 100k messages: `bench/append.ts --stores postgres`; search latency,
 * ingest and recall: `bench/memory-search.ts --stores postgres`.
 *
 * Usage: npx tsx bench/postgres.ts [--seconds 5] [--clients 16] [--messages 200]
 *        (ENGRAM_BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test)
 */
import pg from 'pg';
import { createEngram } from '../src/engram.js';
import { createServer } from '../src/server/create-server.js';
import { type ServeProcess, startServe } from '../test/support/engram-serve-process.js';
import {
  benchPostgresUrl,
  machine,
  openPostgresStore,
  percentile,
  printTable,
  seedSession,
} from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  seconds: { type: 'string', default: '5', check: 'number' },
  clients: { type: 'string', default: '16', check: 'number' },
  messages: { type: 'string', default: '200', check: 'number' },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);

console.log(`PostgreSQL store (${machine()})\n`);

// --- Round trips per operation -------------------------------------------------------------
const store = await openPostgresStore();
const engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: true });
const session = { sessionId: 'trips' };
await seedSession(engram, session.sessionId, Number(values.messages));
await engram.memories.create('default', [
  { text: 'Ada prefers replacements over refunds.', userId: 'ada', topics: ['returns'] },
  { text: 'Ada lives in Porto and drinks green tea.', userId: 'ada' },
]);
const server = createServer({ engram, config: { port: 0, logLevel: 'silent' } });
const { url } = await server.listen();

/** Round trips of `task`, run after one warm-up call (so caches and prepared state are as in steady use). */
async function tripsOf(task: () => Promise<unknown>): Promise<number> {
  await task();
  const before = store.roundTrips();
  await task();
  return store.roundTrips() - before;
}

let appended = 0;
const readGet = () => fetch(`${url}/v1/working-memory/trips`).then((response) => response.text());
/** Round trips of a GET whose cached answer a write (not counted) has just made stale. */
const getAfterWrite = async () => {
  await store.patchSession(
    { tenantId: 'default', namespace: null, userId: null, sessionId: 'trips' },
    { dataPatch: { n: appended++ } },
  );
  const before = store.roundTrips();
  await readGet();
  return store.roundTrips() - before;
};
await getAfterWrite();
const trips: (string | number)[][] = [
  [
    'append 1 message (engine)',
    await tripsOf(() => engram.sessions.append(session, [{ role: 'user', content: `hello ${appended++}` }])),
  ],
  ['GET /v1/working-memory (cached: unchanged session)', await tripsOf(readGet)],
  ['GET /v1/working-memory (after a write)', await getAfterWrite()],
  [
    'hybrid search (engram.memories.search)',
    await tripsOf(() =>
      engram.memories.search('default', { text: 'refund', filter: { userId: { eq: 'ada' } } }),
    ),
  ],
  [
    'assemble one turn (default sources)',
    await tripsOf(() =>
      engram.assemble({
        session,
        message: 'My kettle arrived damaged.',
        agent: { memory: { model: 'gpt-4o', maxWorkingMemoryTokens: 4000 } },
      }),
    ),
  ],
];
await server.close();
await engram.close();
printTable(['operation', 'database round trips'], trips);

// --- Throughput: one server vs two on the same database ------------------------------------
const schema = `engram_bench_http_${Date.now()}`;
const environment = { ENGRAM_STORE_URL: `${benchPostgresUrl}?schema=${schema}`, ENGRAM_LOG_LEVEL: 'warn' };

/** Requests/s and p50/p99 latency of `request` from `clients` concurrent clients over `urls`. */
async function load(
  urls: string[],
  request: (base: string, client: number, index: number) => Promise<Response>,
) {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1_000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let index = 0; performance.now() < deadline; index++) {
        const started = performance.now();
        const response = await request(urls[client % urls.length] as string, client, index);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return [Math.round(latencies.length / seconds), percentile(latencies, 50), percentile(latencies, 99)];
}

const get = (base: string, client: number) => fetch(`${base}/v1/working-memory/read-${client % 4}`);
const append = (base: string, client: number, index: number) =>
  fetch(`${base}/v1/working-memory/write-${client % 4}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      messages: [
        { role: 'user', content: `client ${client} message ${index}`, created_at: '2026-01-01T00:00:00Z' },
      ],
    }),
  });

const rows: (string | number)[][] = [];
const servers: ServeProcess[] = [];
try {
  servers.push(await startServe([], environment));
  for (let reader = 0; reader < 4; reader++) {
    const body = { messages: [{ role: 'user', content: 'seed', created_at: '2026-01-01T00:00:00Z' }] };
    await fetch(`${servers[0]?.url}/v1/working-memory/read-${reader}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
  const one = servers.map((server) => server.url);
  rows.push(['GET working memory', 1, ...(await load(one, get))]);
  rows.push(['append 1 message', 1, ...(await load(one, append))]);
  servers.push(await startServe([], environment));
  const two = servers.map((server) => server.url);
  rows.push(['GET working memory', 2, ...(await load(two, get))]);
  rows.push(['append 1 message', 2, ...(await load(two, append))]);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  const client = new pg.Client({ connectionString: benchPostgresUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
console.log(`\nHTTP throughput, ${clients} clients for ${seconds} s each, spread over the servers:\n`);
printTable(['request', 'servers', 'requests/s', 'p50 ms', 'p99 ms'], rows);
