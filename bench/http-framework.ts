/**
 * HTTP framework choice, measured: a bare JSON "hello" route (GET) and a JSON echo route (POST,
 * ~1 KB body) served by Hono (@hono/node-server) and by Fastify, each in its own child process, driven
 * from this process by a closed-loop load generator over keep-alive connections on 127.0.0.1.
 * Bounded in time (--duration seconds per run) and in count (--max-requests per run).
 * Usage: npx tsx bench/http-framework.ts [--duration 5] [--connections 4] [--rounds 2] [--max-requests 1000000]
 */
import { machine, percentile, printTable } from './bench-utilities.js';
import { type Framework, forkServer, load, type RequestSpec, serveHello } from './http-load.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const frameworks: Framework[] = ['hono', 'fastify'];
const echoBody = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(1_000) }] });
const hello: RequestSpec = { method: 'GET', path: '/hello' };
const echo: RequestSpec = { method: 'POST', path: '/echo', body: echoBody };

async function main(): Promise<void> {
  const values = parseBenchArguments({
    duration: { type: 'string', default: '5', check: 'number' },
    connections: { type: 'string', default: '4', check: 'number' },
    rounds: { type: 'string', default: '2', check: 'number' },
    'max-requests': { type: 'string', default: '1000000', check: 'number' },
    serve: { type: 'string', check: { oneOf: frameworks } },
  });
  if (values.serve) {
    const address = await serveHello(values.serve as Framework);
    process.send?.(address.port);
    return;
  }
  const [seconds, connections, rounds, maxRequests] = [
    values.duration,
    values.connections,
    values.rounds,
    values['max-requests'],
  ].map(Number) as [number, number, number, number];
  console.log(
    `HTTP frameworks (${machine()}), ${connections} connections, ${seconds} s per run, ${rounds} rounds\n`,
  );
  const rows: (string | number)[][] = [];
  // Alternate the frameworks round by round so that drift (CPU clock, other load) affects both alike.
  for (let round = 1; round <= rounds; round++) {
    for (const framework of frameworks) {
      const server = await forkServer(process.argv[1] ?? '', ['--serve', framework]);
      const options = { seconds, connections, maxRequests };
      await load(server.port, () => hello, { ...options, seconds: Math.min(1, seconds) }); // warm-up
      for (const post of [false, true]) {
        const result = await load(server.port, () => (post ? echo : hello), options);
        rows.push([
          round,
          framework,
          post ? 'POST /echo 1 KB' : 'GET /hello',
          result.requestsPerSecond,
          result.p50,
          result.p99,
        ]);
      }
      await server.stop();
    }
  }
  printTable(['round', 'framework', 'route', 'req/s', 'p50 ms', 'p99 ms'], rows);
  console.log('\nMedians over the rounds\n');
  const groups = new Map<string, (string | number)[][]>();
  for (const row of rows)
    groups.set(`${row[1]}|${row[2]}`, [...(groups.get(`${row[1]}|${row[2]}`) ?? []), row]);
  const median = (group: (string | number)[][], column: number) =>
    percentile(
      group.map((row) => Number(row[column])),
      50,
    );
  printTable(
    ['framework', 'route', 'req/s', 'p99 ms'],
    [...groups].map(([key, group]) => [...key.split('|'), median(group, 3), median(group, 5)]),
  );
}

await main();
