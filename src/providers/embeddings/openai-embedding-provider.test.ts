import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { dotProduct } from './l2-normalize.js';
import {
  createOpenAIEmbeddingProvider,
  type OpenAIEmbeddingProviderOptions,
} from './openai-embedding-provider.js';

interface ReceivedRequest {
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: { input: string[]; model: string; dimensions?: number };
}

interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Never answer (to exercise the timeout). */
  hang?: boolean;
}

type Handler = (request: ReceivedRequest, call: number) => Reply;

/** A deterministic 3-d "embedding": the text's length, its first char code, 1. */
function fakeEmbedding(text: string): number[] {
  return [text.length, text.charCodeAt(0) || 0, 1];
}

function embeddingsFor(input: string[], order: 'in-order' | 'reversed' = 'in-order'): unknown {
  const data = input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) }));
  return { object: 'list', data: order === 'reversed' ? data.reverse() : data, model: 'fake' };
}

let server: Server | undefined;

/** Starts a server on 127.0.0.1 (random port) that answers `POST /v1/embeddings` with `handler`. */
async function startServer(handler: Handler): Promise<{ baseUrl: string; requests: ReceivedRequest[] }> {
  const requests: ReceivedRequest[] = [];
  server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
    });
    request.on('end', () => {
      const received = { url: request.url, headers: request.headers, body: JSON.parse(raw) };
      requests.push(received);
      const reply = handler(received, requests.length);
      if (reply.hang) return;
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests };
}

afterEach(async () => {
  const running = server;
  server = undefined;
  if (!running) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

function provider(baseUrl: string, options: Partial<OpenAIEmbeddingProviderOptions> = {}) {
  return createOpenAIEmbeddingProvider({ baseUrl, model: 'fake-embed', retryBaseDelayMs: 1, ...options });
}

describe('OpenAI-compatible embedding provider', () => {
  it('posts the texts and returns unit vectors, learning the dimensions', async () => {
    const { baseUrl, requests } = await startServer(({ body }) => ({ body: embeddingsFor(body.input) }));
    const embeddings = provider(`${baseUrl}/`);
    expect(embeddings.model).toBe('openai:fake-embed');
    expect(embeddings.dimensions).toBe(0);
    const [vector] = await embeddings.embed(['hello']);
    expect(embeddings.dimensions).toBe(3);
    expect(dotProduct(vector as Float32Array, vector as Float32Array)).toBeCloseTo(1, 5);
    const expected = fakeEmbedding('hello');
    expect(vector?.[0]).toBeCloseTo((expected[0] ?? 0) / Math.hypot(...expected), 5);
    expect(requests[0]?.url).toBe('/v1/embeddings');
    expect(requests[0]?.body).toEqual({ input: ['hello'], model: 'fake-embed' });
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });

  it('sends the API key, the requested dimensions and names the model with them', async () => {
    const { baseUrl, requests } = await startServer(({ body }) => ({ body: embeddingsFor(body.input) }));
    const embeddings = provider(baseUrl, { apiKey: 'sk-test', dimensions: 3 });
    expect(embeddings.model).toBe('openai:fake-embed@3');
    await embeddings.embed(['a']);
    expect(requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(requests[0]?.body.dimensions).toBe(3);
  });

  it('splits large inputs into batches and keeps the order', async () => {
    const { baseUrl, requests } = await startServer(({ body }) => ({ body: embeddingsFor(body.input) }));
    const texts = Array.from({ length: 7 }, (_, index) => 'x'.repeat(index + 1));
    const vectors = await provider(baseUrl, { batchSize: 3 }).embed(texts);
    expect(requests.map((request) => request.body.input.length)).toEqual([3, 3, 1]);
    const lengths = vectors.map((vector) => Math.round((vector[0] ?? 0) / (vector[2] ?? 1)));
    expect(lengths).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('reorders the answer by index', async () => {
    const { baseUrl } = await startServer(({ body }) => ({ body: embeddingsFor(body.input, 'reversed') }));
    const vectors = await provider(baseUrl).embed(['a', 'bb', 'ccc']);
    expect(vectors.map((vector) => Math.round((vector[0] ?? 0) / (vector[2] ?? 1)))).toEqual([1, 2, 3]);
  });

  it('retries a 429 after Retry-After, then succeeds', async () => {
    const { baseUrl, requests } = await startServer(({ body }, call) =>
      call === 1
        ? { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } }
        : { body: embeddingsFor(body.input) },
    );
    expect(await provider(baseUrl).embed(['a'])).toHaveLength(1);
    expect(requests).toHaveLength(2);
  });

  it('gives up after maxRetries on 500 with a typed error', async () => {
    const { baseUrl, requests } = await startServer(() => ({ status: 500, body: 'boom' }));
    await expect(provider(baseUrl, { maxRetries: 2 }).embed(['a'])).rejects.toMatchObject({
      code: 'embedding_request_failed',
      category: 'unavailable',
      details: { status: 500, attempts: 3, body: 'boom' },
    });
    expect(requests).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    const { baseUrl, requests } = await startServer(() => ({ status: 400, body: { error: 'bad input' } }));
    await expect(provider(baseUrl).embed([''])).rejects.toMatchObject({ details: { status: 400 } });
    expect(requests).toHaveLength(1);
  });

  it('rejects a vector of the wrong dimension instead of mixing sizes', async () => {
    const { baseUrl } = await startServer(({ body }) => ({ body: embeddingsFor(body.input) }));
    await expect(provider(baseUrl, { dimensions: 4 }).embed(['a'])).rejects.toMatchObject({
      code: 'embedding_dimension_mismatch',
      category: 'validation',
      details: { expected: 4, actual: 3 },
    });
  });

  it('rejects a response whose vectors disagree in size', async () => {
    const { baseUrl } = await startServer(() => ({
      body: {
        data: [
          { index: 0, embedding: [1, 2, 3] },
          { index: 1, embedding: [1, 2] },
        ],
      },
    }));
    await expect(provider(baseUrl).embed(['a', 'b'])).rejects.toMatchObject({
      code: 'embedding_dimension_mismatch',
    });
  });

  it.each([
    ['malformed JSON', '{"data": [', 'not JSON'],
    ['a wrong shape', { data: [{ index: 0, embedding: 'nope' }] }, 'data.0.embedding'],
    ['too few embeddings', { data: [{ index: 0, embedding: [1] }] }, '1 embeddings for 2 inputs'],
    [
      'a repeated index',
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [1] },
        ],
      },
      'repeated index',
    ],
  ])('rejects %s with a typed error', async (_, body, message) => {
    const { baseUrl } = await startServer(() => ({ body }));
    await expect(provider(baseUrl).embed(['a', 'b'])).rejects.toMatchObject({
      code: 'embedding_response_invalid',
      category: 'unavailable',
      message: expect.stringContaining(message),
    });
  });

  it('times out a request that never answers', async () => {
    const { baseUrl } = await startServer(() => ({ hang: true }));
    await expect(provider(baseUrl, { timeoutMs: 50, maxRetries: 1 }).embed(['a'])).rejects.toMatchObject({
      code: 'embedding_timeout',
      details: { attempts: 2 },
    });
  });

  it('stops when the caller aborts, with the abort reason', async () => {
    const { baseUrl } = await startServer(() => ({ hang: true }));
    const controller = new AbortController();
    const pending = provider(baseUrl).embed(['a'], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 20);
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('reports an unreachable server as unavailable', async () => {
    const { baseUrl } = await startServer(() => ({ body: {} }));
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    await expect(provider(baseUrl, { maxRetries: 0 }).embed(['a'])).rejects.toMatchObject({
      code: 'embedding_request_failed',
      category: 'unavailable',
    });
  });

  it('names its endpoint without the key a base URL carries (user info, query)', async () => {
    const { baseUrl } = await startServer(() => ({ status: 400, body: {} }));
    const rejected = provider(`${baseUrl}?api-key=s3cret`, { maxRetries: 0 }).embed(['a']);
    await expect(rejected).rejects.toMatchObject({ message: expect.stringContaining('api-key=***') });
    await expect(rejected).rejects.not.toMatchObject({ message: expect.stringContaining('s3cret') });
    // fetch refuses credentials in a URL with a message that quotes it: the cause is redacted too.
    const refused = await provider(baseUrl.replace('//', '//me:k3y@'), { maxRetries: 0 })
      .embed(['a'])
      .catch((error: Error) => error);
    const cause = (refused as Error).cause as Error;
    expect(`${(refused as Error).message} ${cause.message} ${cause.stack}`).not.toMatch(/k3y|me:/);
    expect((refused as Error).message).toContain('***:***@');
  });

  it('validates its options', () => {
    expect(() => createOpenAIEmbeddingProvider({ baseUrl: 'not a url', model: 'm' })).toThrow(/baseUrl/);
    expect(() => createOpenAIEmbeddingProvider({ baseUrl: 'http://x', model: 'm', batchSize: 0 })).toThrow(
      /batchSize/,
    );
  });
});
