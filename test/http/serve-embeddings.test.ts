import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../../src/server/server-config.js';
import { startServer } from '../../src/server/start-server.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

// `engram serve` with an OpenAI-compatible embeddings endpoint: a local fake that embeds each
// text as word counts hashed into 8 dimensions and records what it was asked.
const DIMENSIONS = 8;
const temporaryDirectory = useTemporaryDirectories('engram-serve-embeddings-');
const received: { model: string; input: string[]; authorization: string | undefined }[] = [];
let fake: Server;
let fakeUrl: string;

function embed(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let hash = 0;
    for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) % 9_973;
    vector[hash % DIMENSIONS] = (vector[hash % DIMENSIONS] ?? 0) + 1;
  }
  return vector.some((value) => value > 0) ? vector : [1, ...vector.slice(1)];
}

beforeAll(async () => {
  fake = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      received.push({ model, input, authorization: request.headers.authorization });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: input.map((text, index) => ({ index, embedding: embed(text) })) }));
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => fake.close(() => resolve())));

const environment = { ENGRAM_LOG_LEVEL: 'silent' };

/** Runs `engram serve` as the CLI does; resolves the server and the URL it announced. */
async function serve(flags: Parameters<typeof startServer>[0]['flags'], env: Record<string, string>) {
  let announced = '';
  const stderr = new Writable({
    write: (chunk, _encoding, done) => {
      announced += String(chunk);
      done();
    },
  });
  const server = await startServer({ flags: { port: '0', ...flags }, environment: env, stderr });
  const url = /listening on (\S+)/.exec(announced)?.[1];
  expect(url).toBeDefined();
  return { server, url: url as string, announced };
}

async function post(url: string, path: string, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { memories?: { id: string }[] };
}

describe('engram serve with an OpenAI-compatible embeddings endpoint', () => {
  it('reads the endpoint from flags and environment, the key only from the environment', () => {
    const config = resolveServerConfig(
      { 'embeddings-model': 'flag-model', 'embeddings-dimensions': '256' },
      { ENGRAM_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1', ENGRAM_EMBEDDINGS_API_KEY: 'sk-test' },
    );
    expect(config.embeddings).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'flag-model',
      apiKey: 'sk-test',
      dimensions: 256,
    });
    expect(resolveServerConfig({}, {}).embeddings).toBeUndefined();
    expect(() => resolveServerConfig({ 'embeddings-model': 'm' }, {})).toThrow(/baseUrl/);
  });

  it('embeds with the endpoint and re-embeds what an earlier model stored', async () => {
    const databasePath = join(temporaryDirectory(), 'engram.db');
    const texts = ['Ana moved to Lisbon in May', 'Bo collects vintage cameras', 'Ana loves tea'];
    // First run: the offline static vectors.
    const offline = await serve({ db: databasePath }, environment);
    await post(offline.url, '/v1/long-term-memory/', {
      memories: texts.map((text, index) => ({ id: `m${index}`, text, user_id: 'u1' })),
    });
    await offline.server.close();
    expect(received).toEqual([]);

    // Second run: the endpoint. The first search finds vectors of another model and re-embeds.
    const {
      server: served,
      url,
      announced,
    } = await serve(
      {
        db: databasePath,
        'embeddings-base-url': fakeUrl,
        'embeddings-model': 'fake-embedder',
        'embeddings-dimensions': String(DIMENSIONS),
      },
      { ...environment, ENGRAM_EMBEDDINGS_API_KEY: 'sk-fake' },
    );
    expect(announced).toContain(`embeddings fake-embedder at ${fakeUrl}`);
    await post(url, '/v1/long-term-memory/search', { text: 'cameras', user_id: { eq: 'u1' } });
    await expect
      .poll(() => received.flatMap((call) => call.input).filter((text) => texts.includes(text)).length)
      .toBe(3);
    // New memories are embedded by the endpoint when written.
    await post(url, '/v1/long-term-memory/', {
      memories: [{ id: 'm3', text: 'Bo learns the cello', user_id: 'u1' }],
    });
    const semantic = await post(url, '/v1/long-term-memory/search', {
      // Vector-only with a real model: the memory embedded as the query is nearest.
      text: 'Bo learns the cello',
      search_mode: 'semantic',
      user_id: { eq: 'u1' },
      recency_boost: false,
    });
    expect(semantic.memories?.[0]?.id).toBe('m3');
    await served.close();
    expect(new Set(received.map((call) => call.model))).toEqual(new Set(['fake-embedder']));
    expect(new Set(received.map((call) => call.authorization))).toEqual(new Set(['Bearer sk-fake']));

    // Every stored memory now carries the endpoint's vectors.
    const store = await createSqliteStore({ path: databasePath });
    expect(await store.memories.findUnembedded('default', `openai:fake-embedder@${DIMENSIONS}`, 10)).toEqual(
      [],
    );
    await store.close();
  });
});
