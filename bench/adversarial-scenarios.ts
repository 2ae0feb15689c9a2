/**
 * The inputs of bench/adversarial.ts: each scenario's setup (not measured) and action (measured),
 * and the helpers they share. See that file for what is measured and how.
 */

import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAX_DOCUMENT_CHARS } from '../src/engine/long-term/knowledge-base.js';
import { type Context, call, refusedStatus } from './adversarial-calls.js';
import {
  longMemoryText,
  markdown,
  millionMessages,
  noSpaceRun,
  shortMessages,
} from './adversarial-inputs.js';

export const allScenarios = [
  'ordinary-turn',
  'no-space-append',
  'no-space-put',
  'redos',
  'big-document',
  'put-100k',
  'get-100k',
  'put-1m',
  'upload-floor',
  'upload-floor-run',
  'download-floor',
  'oversize-body',
  'over-max-document',
  'long-memories-prompt',
  'long-history',
  'long-message-context',
  'mcp-long-search',
] as const;

/** The flags the inputs depend on, as `parseArgs` gives them. */
export interface ScenarioOptions {
  'run-chars': string;
  'document-mb': string;
  'body-limit': string;
  repeat: string;
}

/** A JSON body as bytes, built and encoded before the measured window. */
const encode = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value));

/** Each scenario's setup (not measured) and action (measured); the action says its outcome. */
export function createScenarios(options: ScenarioOptions): Record<
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
> {
  return {
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
      label: `append 1 message of ${options['run-chars']} chars, no whitespace`,
      setup: async () =>
        encode({ messages: [{ role: 'user', content: noSpaceRun(Number(options['run-chars'])) }] }),
      async action(context, body, send) {
        // A session per send: appending to one session again would measure a growing session.
        const path = `/v1/working-memory/adv-append-${send}/messages`;
        return String((await call(context, 'POST', path, body)).status);
      },
    },
    'no-space-put': {
      label: `PUT 1 message of ${options['run-chars']} chars, no whitespace`,
      setup: async () =>
        encode({
          messages: [
            {
              role: 'user',
              content: noSpaceRun(Number(options['run-chars']), 2),
              created_at: new Date().toISOString(),
            },
          ],
        }),
      async action(context, body) {
        return String((await call(context, 'PUT', '/v1/working-memory/adv-put', body)).status);
      },
    },
    redos: {
      label: `(a+)+$ trigger, context for 30 a + "!" ×${options.repeat}`,
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
        for (let index = 0; index < Number(options.repeat); index++) {
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
      label: `${options['document-mb']} MB Markdown upload, until its task succeeds`,
      once: true,
      async setup(context) {
        await call(context, 'POST', '/v1/agents', JSON.stringify({ id: 'adv-docs' }));
        return Buffer.from(markdown(Number(options['document-mb']) * 1_000_000));
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
        // Refused from the raw bytes and the connection closed: the rest of the upload may fail.
        return refusedStatus(() => call(context, 'PUT', '/v1/working-memory/adv-1m', body));
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
    'upload-floor-run': {
      label: `the append's body (1 message of ${options['run-chars']} chars) to a route that does not exist`,
      setup: async () =>
        encode({ messages: [{ role: 'user', content: noSpaceRun(Number(options['run-chars'])) }] }),
      async action(context, body) {
        // The floor of the inputs of about a megabyte (no-space append and PUT, long context).
        return String((await call(context, 'POST', '/v1/no-such-route', body)).status);
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
    'download-floor': {
      label: 'a 1.7 MB file the server keeps in memory (Swagger UI script), downloaded',
      async action(context) {
        // No engram work: the answers of about a megabyte (memory prompt, history pages) cost at
        // least what moving this many bytes through loopback costs on this machine.
        const { status, text } = await call(context, 'GET', '/docs/swagger-ui-bundle.js');
        return `${status}, ${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB`;
      },
    },
    'oversize-body': {
      label: 'body 1 byte over the body limit',
      setup: async () => encode({ context: 'x'.repeat(Number(options['body-limit'])) }),
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
          const page = JSON.parse(answer.text) as {
            versions?: unknown[];
            next_before_version?: number | null;
          };
          versions += page.versions?.length ?? 0;
          before = page.next_before_version ?? null;
        }
        return `${status}, ${versions} versions in ${pages} pages, ${(bytes / 1e6).toFixed(1)} MB`;
      },
    },
    'long-message-context': {
      label: `context for 1 message of ${options['run-chars']} chars, no whitespace`,
      async setup(context) {
        // Warm-up (model, counters, embedder): the measured request is the long message only.
        await call(context, 'POST', '/v1/context', JSON.stringify({ session_id: 'warm', message: 'hi' }));
        return encode({
          session_id: 'adv-context',
          user_id: 'adv',
          message: noSpaceRun(Number(options['run-chars']), 3),
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
