/**
 * HTTP framework choice, measured: a bare JSON "hello" route (GET) and a JSON echo route (POST,
 * ~1 KB body) served by Hono (@hono/node-server) and by Fastify, each in its own child process, driven
 * from this process by a closed-loop load generator over keep-alive connections on 127.0.0.1.
 * Bounded in time (--duration seconds per run) and in count (--max-requests per run).
 * Usage: npx tsx bench/http-framework.ts [--duration 5] [--connections 4] [--rounds 2] [--max-requests 1000000]
 */
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { machine, percentile, printTable } from './bench-utilities.js';

type Framework = 'hono' | 'fastify';
const frameworks: Framework[] = ['hono', 'fastify'];
const echoBody = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(1_000) }] });

async function serve(framework: Framework): Promise<AddressInfo> {
  if (framework === 'hono') {
    const { Hono } = await import('hono');
    const { serve: serveHono } = await import('@hono/node-server');
    const app = new Hono();
    app.get('/hello', (context) => context.json({ hello: 'world' }));
    app.post('/echo', async (context) => context.json(await context.req.json()));
    return new Promise((resolve) => {
      serveHono({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, resolve);
    });
  }
  const { default: createFastify } = await import('fastify');
  const app = createFastify();
  app.get('/hello', async () => ({ hello: 'world' }));
  app.post('/echo', async (incoming) => incoming.body);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return app.server.address() as AddressInfo;
}

/** One request; resolves its latency in milliseconds (rejects on a non-200 answer). */
function send(agent: Agent, port: number, post: boolean): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: post ? 'POST' : 'GET',
        path: post ? '/echo' : '/hello',
        headers: post ? { 'content-type': 'application/json' } : {},
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`HTTP ${response.statusCode}`)),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(post ? echoBody : undefined);
  });
}

/** Closed loop: `connections` workers each send one request after another until time or count runs out. */
async function load(port: number, post: boolean, seconds: number, connections: number, maxRequests: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1_000;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < deadline && latencies.length < maxRequests) {
      latencies.push(await send(agent, port, post));
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1_000;
  agent.destroy();
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '4' },
      rounds: { type: 'string', default: '2' },
      'max-requests': { type: 'string', default: '1000000' },
      serve: { type: 'string' },
    },
  });
  if (values.serve) {
    const address = await serve(values.serve as Framework);
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
      const child = fork(process.argv[1] ?? '', ['--serve', framework], { stdio: 'inherit' });
      const port = await new Promise<number>((resolve) =>
        child.once('message', (port) => resolve(Number(port))),
      );
      await load(port, false, Math.min(1, seconds), connections, maxRequests); // warm-up
      for (const post of [false, true]) {
        const result = await load(port, post, seconds, connections, maxRequests);
        rows.push([
          round,
          framework,
          post ? 'POST /echo 1 KB' : 'GET /hello',
          result.requestsPerSecond,
          result.p50,
          result.p99,
        ]);
      }
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
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
