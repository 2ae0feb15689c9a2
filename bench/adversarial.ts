/**
 * Adversarial inputs against a real engram server while a client polls `/v1/health`, beside a
 * control (ordinary traffic: a short message appended and a context turn), and the upload alone of
 * the largest body (30 MB to a route that does not exist): a message of
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
 *        [--scenarios ordinary-turn,no-space-append,no-space-put,redos,big-document,put-100k,get-100k,put-1m,upload-floor,oversize-body,
 *        over-max-document,long-memories-prompt,long-history,
 *        long-message-context,mcp-long-search]
 */

import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAX_DOCUMENT_CHARS } from '../src/engine/long-term/knowledge-base.js';
import { createEngram } from '../src/engram.js';
import { createServer } from '../src/server/create-server.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { createWorkerStore } from '../src/stores/worker/worker-store.js';
import { markdown, noSpaceRun, shortMessages } from './adversarial-inputs.js';
import { machine, percentile, printTable } from './bench-utilities.js';
import { startHealthPoller } from './poll-health.js';

const allScenarios = [
  'ordinary-turn',
  'no-space-append',
  'no-space-put',
  'redos',
  'big-document',
  'put-100k',
  'get-100k',
  'put-1m',
  'upload-floor',
  'oversize-body',
  'over-max-document',
  'long-memories-prompt',
  'long-history',
  'long-message-context',
  'mcp-long-search',
] as const;

const { values } = parseArgs({
  options: {
    'quiet-seconds': { type: 'string', default: '3' },
    'run-chars': { type: 'string', default: '900000' },
    'document-mb': { type: 'string', default: '4.9' },
    'health-interval-ms': { type: 'string', default: '5' },
    'body-limit': { type: 'string', default: '40000000' },
    repeat: { type: 'string', default: '3' },
    'store-thread': { type: 'string', default: 'worker' },
    'settle-seconds': { type: 'string', default: '20' },
    'after-seconds': { type: 'string', default: '2' },
    'max-sends': { type: 'string', default: '100' },
    scenarios: { type: 'string', default: allScenarios.join(',') },
    serve: { type: 'boolean', default: false },
  },
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

interface Context {
  base: string;
  child: ChildProcess;
  /** The MCP client of `mcp-long-search`, connected in its setup. */
  mcp?: Client;
}

async function call(
  context: Context,
  method: string,
  path: string,
  body?: string | Uint8Array,
  type = 'application/json',
) {
  const response = await fetch(`${context.base}${path}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': type } }),
  });
  const text = await response.text();
  return { status: response.status, text };
}

/** A JSON body as bytes, built and encoded before the measured window. */
const encode = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value));

/** Each scenario's setup (not measured) and action (measured); the action says its outcome. */
const scenarios: Record<
  (typeof allScenarios)[number],
  {
    label: string;
    /**
     * Not measured: builds the request body (so building it never counts) and any server state.
     * Bodies are encoded here too: encoding 40 MB in the measured window is the client's work
     * (page faults on fresh memory, on the same two cores as the server), not the server's.
     */
    setup?: (context: Context) => Promise<Uint8Array | undefined>;
    /** `send` numbers the sends of an input sent several times (from 0). */
    action: (context: Context, body: Uint8Array | undefined, send: number) => Promise<string>;
    /**
     * Sent once: its window already holds hundreds of health requests (seconds of work), and
     * sending it again would measure its background work (a summary of 100,000 messages) instead.
     */
    once?: true;
  }
> = {
  'ordinary-turn': {
    label: 'ordinary traffic: append a short message, then a context turn (the control)',
    async setup(context) {
      // Warm-up, as the other inputs get: the measured requests are the ordinary ones only.
      await call(context, 'POST', '/v1/context', JSON.stringify({ session_id: 'warm', message: 'hi' }));
      return undefined;
    },
    async action(context, _body, send) {
      const message = `Message ${send}: we moved the team dinner to Thursday at the Thai place.`;
      const appended = await call(
        context,
        'POST',
        '/v1/working-memory/adv-ordinary/messages',
        JSON.stringify({ messages: [{ role: 'user', content: message }] }),
      );
      const turn = await call(
        context,
        'POST',
        '/v1/context',
        JSON.stringify({ session_id: 'adv-ordinary', user_id: 'adv', message: 'When is the team dinner?' }),
      );
      return `${appended.status},${turn.status}`;
    },
  },
  'no-space-append': {
    label: `append 1 message of ${values['run-chars']} chars, no whitespace`,
    setup: async () =>
      encode({ messages: [{ role: 'user', content: noSpaceRun(Number(values['run-chars'])) }] }),
    async action(context, body, send) {
      // A session per send: appending to one session again would measure a growing session.
      const path = `/v1/working-memory/adv-append-${send}/messages`;
      return String((await call(context, 'POST', path, body)).status);
    },
  },
  'no-space-put': {
    label: `PUT 1 message of ${values['run-chars']} chars, no whitespace`,
    setup: async () =>
      encode({
        messages: [
          {
            role: 'user',
            content: noSpaceRun(Number(values['run-chars']), 2),
            created_at: new Date().toISOString(),
          },
        ],
      }),
    async action(context, body) {
      return String((await call(context, 'PUT', '/v1/working-memory/adv-put', body)).status);
    },
  },
  redos: {
    label: `(a+)+$ trigger, context for 30 a + "!" ×${values.repeat}`,
    async setup(context) {
      await call(context, 'POST', '/v1/agents', JSON.stringify({ id: 'adv' }));
      const created = await call(
        context,
        'POST',
        '/v1/agents/adv/procedures',
        JSON.stringify({ name: 'Catastrophic', triggers: ['(a+)+$'], steps: ['Say hi'] }),
      );
      const { id } = JSON.parse(created.text) as { id: string };
      await call(context, 'POST', `/v1/agents/adv/procedures/${id}/approve`);
      // Warm-up (model, counters, embedder): the measured requests are the near-misses only.
      await call(
        context,
        'POST',
        '/v1/context',
        JSON.stringify({ agent_id: 'adv', session_id: 'warm', message: 'hi' }),
      );
      return undefined;
    },
    async action(context) {
      const statuses: number[] = [];
      for (let index = 0; index < Number(values.repeat); index++) {
        const body = JSON.stringify({
          agent_id: 'adv',
          session_id: 'adv-redos',
          message: `${'a'.repeat(30)}!`,
        });
        statuses.push((await call(context, 'POST', '/v1/context', body)).status);
      }
      return statuses.join(',');
    },
  },
  'big-document': {
    label: `${values['document-mb']} MB Markdown upload, until its task succeeds`,
    once: true,
    async setup(context) {
      await call(context, 'POST', '/v1/agents', JSON.stringify({ id: 'adv-docs' }));
      return Buffer.from(markdown(Number(values['document-mb']) * 1_000_000));
    },
    async action(context, content) {
      const accepted = await call(
        context,
        'POST',
        '/v1/agents/adv-docs/knowledge?name=Big.md',
        content,
        'text/markdown',
      );
      if (accepted.status !== 202) return String(accepted.status);
      const { task_id } = JSON.parse(accepted.text) as { task_id: string };
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const task = JSON.parse((await call(context, 'GET', `/v1/tasks/${task_id}`)).text) as {
          status: string;
          progress?: { total: number | null };
        };
        if (task.status === 'success' || task.status === 'failed') {
          return `202, task ${task.status} (${task.progress?.total ?? '?'} chunks)`;
        }
      }
    },
  },
  'put-100k': {
    label: 'PUT 100,000 messages (at the limit)',
    once: true,
    // Bodies are built before the measured window: the client's own work is not the server's.
    setup: async () => {
      return encode(shortMessages(100_000));
    },
    async action(context, body) {
      return String((await call(context, 'PUT', '/v1/working-memory/adv-100k', body)).status);
    },
  },
  'get-100k': {
    label: 'GET the 100,000-message session (after put-100k), uncached',
    async action(context, _body, send) {
      // A query parameter the route ignores makes each send's URL new to the answer cache.
      const { status, text } = await call(context, 'GET', `/v1/working-memory/adv-100k?_=${send}`);
      return `${status}, ${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB`;
    },
  },
  'put-1m': {
    label: 'PUT 1,000,000 messages (over the limit)',
    setup: async () => millionMessages(),
    async action(context, body) {
      return String((await call(context, 'PUT', '/v1/working-memory/adv-1m', body)).status);
    },
  },
  'upload-floor': {
    label: 'the same 30 MB body to a route that does not exist (the upload alone)',
    setup: async () => millionMessages(),
    async action(context, body) {
      // Answered 404 at once; Node reads the body on and drops it: what sending 30 MB to this
      // machine costs everyone else, whatever the server does with it.
      return String((await call(context, 'PUT', '/v1/no-such-route', body)).status);
    },
  },
  'over-max-document': {
    label: `document of ${MAX_DOCUMENT_CHARS + 1} chars (over MAX_DOCUMENT_CHARS), JSON`,
    async setup(context) {
      await call(context, 'POST', '/v1/agents', JSON.stringify({ id: 'adv-over' }));
      return encode({ name: 'Over.md', content: 'x'.repeat(MAX_DOCUMENT_CHARS + 1) });
    },
    async action(context, body) {
      // Refused by validation; the error must not echo the 5 MB content back.
      const { status, text } = await call(context, 'POST', '/v1/agents/adv-over/knowledge', body);
      return `${status}, ${Buffer.byteLength(text)} B error body`;
    },
  },
  'oversize-body': {
    label: 'body 1 byte over the body limit',
    setup: async () => encode({ context: 'x'.repeat(Number(values['body-limit'])) }),
    async action(context, body = new Uint8Array()) {
      // The server answers 413 from the Content-Length and closes: read the answer, ignore EPIPE.
      return new Promise<string>((resolve) => {
        const outgoing = request(`${context.base}/v1/working-memory/adv-huge`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        });
        outgoing.on('response', (response) => {
          response.resume();
          resolve(String(response.statusCode));
        });
        outgoing.on('error', () => resolve('413 (closed while sending)'));
        outgoing.end(body);
      });
    },
  },
  'long-memories-prompt': {
    label: 'memory prompt over 100 memories of 20,000 chars (128k window)',
    async setup(context) {
      await createLongMemories(context, 'adv-long');
      return encode({
        query: 'What is the travel policy?',
        model_name: 'gpt-4o',
        long_term_search: { text: 'travel policy', user_id: { eq: 'adv-long' }, limit: 100 },
      });
    },
    async action(context, body) {
      const { status, text } = await call(context, 'POST', '/v1/memory/prompt', body);
      return `${status}, ${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB`;
    },
  },
  'long-history': {
    label: 'history of a memory edited 300 times at 20,000 chars',
    async setup(context) {
      const text = (version: number) => longMemoryText(`Version ${version} of the travel policy.`);
      await call(
        context,
        'POST',
        '/v1/long-term-memory/',
        JSON.stringify({ memories: [{ id: 'adv-history', text: text(0) }] }),
      );
      for (let version = 1; version < 300; version++) {
        await call(
          context,
          'PATCH',
          '/v1/long-term-memory/adv-history',
          JSON.stringify({ text: text(version) }),
        );
      }
      return undefined;
    },
    async action(context) {
      // The whole history, page by page as a client reads it (a page holds about 1,000,000
      // characters of text: 50 of these versions).
      let bytes = 0;
      let versions = 0;
      let pages = 0;
      let status = 200;
      for (let before: number | null | undefined; before !== null && status === 200; pages++) {
        const query = before === undefined ? '' : `&before_version=${before}`;
        const answer = await call(
          context,
          'GET',
          `/v1/long-term-memory/adv-history/history?limit=1000${query}`,
        );
        status = answer.status;
        bytes += Buffer.byteLength(answer.text);
        const page = JSON.parse(answer.text) as { versions?: unknown[]; next_before_version?: number | null };
        versions += page.versions?.length ?? 0;
        before = page.next_before_version ?? null;
      }
      return `${status}, ${versions} versions in ${pages} pages, ${(bytes / 1e6).toFixed(1)} MB`;
    },
  },
  'long-message-context': {
    label: `context for 1 message of ${values['run-chars']} chars, no whitespace`,
    async setup(context) {
      // Warm-up (model, counters, embedder): the measured request is the long message only.
      await call(context, 'POST', '/v1/context', JSON.stringify({ session_id: 'warm', message: 'hi' }));
      return encode({
        session_id: 'adv-context',
        user_id: 'adv',
        message: noSpaceRun(Number(values['run-chars']), 3),
      });
    },
    async action(context, body) {
      // Over the default agent's budget: counted, then refused (422).
      return String((await call(context, 'POST', '/v1/context', body)).status);
    },
  },
  'mcp-long-search': {
    label: 'MCP search_long_term_memory over 100 memories of 20,000 chars',
    async setup(context) {
      await createLongMemories(context, 'adv-mcp');
      // Connected (initialize, tools listed) before the measured window.
      const client = new Client({ name: 'engram-adversarial', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', context.base)));
      context.mcp = client;
      return undefined;
    },
    async action(context) {
      const result = await context.mcp?.callTool({
        name: 'search_long_term_memory',
        arguments: { text: 'travel policy', user_id: { eq: 'adv-mcp' }, limit: 100 },
      });
      const page = result?.structuredContent as { memories: unknown[] } | undefined;
      return `${result?.isError ? 'error' : 'ok'}, ${page?.memories.length ?? 0} memories`;
    },
  },
};

/** The body of a PUT of 1,000,000 messages (30 MB), written in place (Buffer.fill repeats the item). */
function millionMessages(): Uint8Array {
  const [head, item, tail] = [
    '{"messages":[',
    '{"role":"user","content":"x"},',
    '{"role":"user","content":"x"}]}',
  ];
  const body = Buffer.alloc(head.length + item.length * 999_999 + tail.length);
  body.write(head);
  body.fill(item, head.length, body.length - tail.length);
  body.write(tail, body.length - tail.length);
  return body;
}

/** 100 memories of 20,000 characters for `userId`, once all are searchable (AMS creates in the background). */
async function createLongMemories(context: Context, userId: string): Promise<void> {
  const memories = Array.from({ length: 100 }, (_, index) => ({
    id: `${userId}-${index}`,
    text: longMemoryText(`Memory ${index} about the travel policy.`),
    user_id: userId,
    memory_type: 'semantic',
  }));
  await call(context, 'POST', '/v1/long-term-memory/', JSON.stringify({ memories }));
  const search = JSON.stringify({ text: '', user_id: { eq: userId }, limit: 1 });
  for (let tries = 0; tries < 200; tries++) {
    const { text } = await call(context, 'POST', '/v1/long-term-memory/search', search);
    if ((JSON.parse(text) as { total: number }).total >= 100) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A memory text of 20,000 characters (the limit) of plain prose, starting with `head`. */
function longMemoryText(head: string): string {
  const prose = ' Employees book trains for trips under four hours and flights beyond that.';
  return `${head}${prose.repeat(Math.ceil(20_000 / prose.length))}`.slice(0, 20_000);
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
      after = [percentile(afterLatencies, 99).toPrecision(3), Math.max(...afterLatencies).toPrecision(3)];
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
