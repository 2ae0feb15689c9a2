import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server received: its path, headers and parsed JSON body. */
export interface ScriptedRequest {
  url: string;
  headers: IncomingHttpHeaders;
  body: {
    model?: string;
    messages?: { role: string; content: string }[];
    stream?: boolean;
    response_format?: { type: string };
    [key: string]: unknown;
  };
}

/**
 * One scripted answer. `content` answers as a completion (or, when the request streams, as SSE
 * chunks of `chunks` or of the content split in words, `chunkDelayMs` apart); `status` answers an error with `body` and
 * `headers`; `raw` sends a body as is; `hang` never answers; `delayMs` waits first.
 */
export type ScriptedReply = { delayMs?: number } & (
  | { content: string; chunks?: string[]; finishReason?: string; omitDone?: boolean; chunkDelayMs?: number }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { raw: string; contentType?: string }
  | { hang: true }
);

/**
 * A local server speaking OpenAI's chat completions protocol with scripted answers; requests to
 * `/v1/embeddings` take the next scripted answer too (script them as `raw`).
 */
export interface ScriptedOpenAIServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  requests: ScriptedRequest[];
  /** Queues answers, used in order, one per request. */
  script(...replies: ScriptedReply[]): void;
  /** Answers still queued. */
  remaining(): number;
  close(): Promise<void>;
}

const completion = (content: string, finishReason: string) => ({
  id: 'chatcmpl-scripted',
  object: 'chat.completion',
  created: 1_767_225_600,
  model: 'scripted-model',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
  usage: { prompt_tokens: 10, completion_tokens: content.length, total_tokens: 10 + content.length },
});

const chunk = (delta: Record<string, string>, finishReason: string | null) => ({
  id: 'chatcmpl-scripted',
  object: 'chat.completion.chunk',
  created: 1_767_225_600,
  model: 'scripted-model',
  choices: [{ index: 0, delta, finish_reason: finishReason }],
});

async function sendStream(
  response: ServerResponse,
  reply: {
    content: string;
    chunks?: string[];
    finishReason?: string;
    omitDone?: boolean;
    chunkDelayMs?: number;
  },
) {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const pieces = reply.chunks ?? reply.content.split(/(?<= )/);
  const events = [
    chunk({ role: 'assistant', content: '' }, null),
    ...pieces.map((piece) => chunk({ content: piece }, null)),
    chunk({}, reply.finishReason ?? 'stop'),
  ];
  for (const event of events) {
    // A client that hung up (an aborted request) gets no more chunks.
    if (response.destroyed) return;
    response.write(`data: ${JSON.stringify(event)}\n\n`);
    if (reply.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs));
  }
  if (response.destroyed) return;
  if (!reply.omitDone) response.write('data: [DONE]\n\n');
  response.end();
}

function answer(request: ScriptedRequest, reply: ScriptedReply | undefined, response: ServerResponse) {
  if (!reply) {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: 'The scripted server has no answer left' } }));
    return;
  }
  if ('hang' in reply) return;
  if ('raw' in reply) {
    response.writeHead(200, { 'content-type': reply.contentType ?? 'application/json' });
    response.end(reply.raw);
  } else if ('status' in reply) {
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? { error: {} }));
  } else if (request.body.stream) {
    void sendStream(response, reply);
  } else {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(completion(reply.content, reply.finishReason ?? 'stop')));
  }
}

/**
 * Starts the server on a free loopback port. Tests start and stop it: nothing ever reaches the
 * network. A request with no scripted answer left gets HTTP 500.
 */
export async function startScriptedOpenAIServer(...replies: ScriptedReply[]): Promise<ScriptedOpenAIServer> {
  const queue = [...replies];
  const requests: ScriptedRequest[] = [];
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (data: Buffer) => {
      raw += data.toString('utf8');
    });
    request.on('end', () => {
      const received: ScriptedRequest = {
        url: request.url ?? '',
        headers: request.headers,
        body: raw ? (JSON.parse(raw) as ScriptedRequest['body']) : {},
      };
      requests.push(received);
      if (request.url !== '/v1/chat/completions' && request.url !== '/v1/embeddings') {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `No route ${request.url}` } }));
        return;
      }
      const reply = queue.shift();
      setTimeout(() => answer(received, reply, response), reply?.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...more) => {
      queue.push(...more);
    },
    remaining: () => queue.length,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
