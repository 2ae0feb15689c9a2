/**
 * What the HTTP benchmarks share: a bare JSON "hello" server per framework, a server in a child
 * process, and a closed-loop load generator over keep-alive connections on 127.0.0.1.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { percentile } from './bench-utilities.js';

export type Framework = 'hono' | 'fastify';

/** One request of a scenario. */
export interface RequestSpec {
  method: string;
  path: string;
  body?: string;
}

/** Serves `GET /hello` (`{"hello":"world"}`) and `POST /echo` (the JSON body back) on a free port. */
export async function serveHello(framework: Framework): Promise<AddressInfo> {
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

/** A child process running `script args` that sends its port over IPC once it listens. */
export interface ServerProcess {
  port: number;
  /**
   * CPU microseconds (user + system) the server process has used so far; needs a child that
   * answers the IPC message `'cpu'` (see `answerCpuRequests`).
   */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/** In a server child: answers `'cpu'` IPC messages with the process's CPU time in microseconds. */
export function answerCpuRequests(): void {
  process.on('message', (message) => {
    if (message !== 'cpu') return;
    const usage = process.cpuUsage();
    process.send?.({ cpu: usage.user + usage.system });
  });
}

/** Forks `script` (with this process's `--import tsx`); its stdout is discarded, stderr shown. */
export async function forkServer(script: string, args: string[]): Promise<ServerProcess> {
  const child: ChildProcess = fork(script, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve(Number(message)));
    child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  return {
    port,
    cpu() {
      return new Promise((resolve) => {
        const answer = (message: unknown) => {
          if (typeof message !== 'object' || message === null || !('cpu' in message)) return;
          child.off('message', answer);
          resolve(Number(message.cpu));
        };
        child.on('message', answer);
        child.send('cpu');
      });
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}

/** Sends one request; resolves its status and latency in milliseconds. */
export function send(agent: Agent, port: number, spec: RequestSpec): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: spec.method,
        path: spec.path,
        headers: spec.body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(spec.body);
  });
}

/** How long and how hard to load. */
export interface LoadOptions {
  seconds: number;
  connections: number;
  maxRequests?: number;
}

/** Throughput and latency percentiles of one load run. */
export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

/**
 * Closed loop: `connections` workers each send one request after another (worker `w`'s next from
 * `next(w)`) until time or count runs out. Any answer other than 200 stops the run with an error.
 */
export async function load(
  port: number,
  next: (worker: number) => RequestSpec,
  options: LoadOptions,
): Promise<LoadResult> {
  const { seconds, connections, maxRequests = Number.POSITIVE_INFINITY } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1_000;
  const started = performance.now();
  const worker = async (index: number) => {
    while (performance.now() < deadline && latencies.length < maxRequests) {
      const spec = next(index);
      const { status, ms } = await send(agent, port, spec);
      if (status !== 200) throw new Error(`${spec.method} ${spec.path}: HTTP ${status}`);
      latencies.push(ms);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, (_, index) => worker(index)));
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - started) / 1_000;
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
