import { request } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { queuedTurns } from '../../test/support/queued-turns.js';
import { BodyBytes } from './body-bytes.js';
import { readUtf8Body, WORKER_BODY_BYTES } from './parse-utf8-body.js';

// Every pause of the reader must wait in the shared queue of sliced work (`nextTurn`): an
// immediate of its own would resume in the same check phase as another request's slice.
vi.mock('../core/event-loop-slicer.js', async (importOriginal) =>
  (await import('../../test/support/queued-turns.js')).recordingNextTurn(await importOriginal()),
);

let app: FastifyInstance;
const ticker = { turn: 0, running: false };
const turns = { end: 0 };
const pauses = { count: 0 };
let port = 0;

beforeAll(async () => {
  app = Fastify({ bodyLimit: 8_000_000 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', readUtf8Body);
  app.post('/echo', async (req) => ({ text: req.body as string }));
  const uploadConfig = { bodyFieldLimits: { text: { field: 'content', limit: 10 } } };
  app.post('/upload', { config: uploadConfig }, async (req) => ({ text: req.body as string }));
  // Which turn of the event loop (counted by `ticker`) the body ended in, and the handler ran in.
  app.post(
    '/turns',
    {
      preParsing: (_req, _reply, payload, done) => {
        payload.on('end', () => {
          turns.end = ticker.turn;
        });
        done(null, payload);
      },
    },
    async () => ({ gap: ticker.turn - turns.end }),
  );
  // A `bodyAsBytes` route: a large JSON body comes as its chunks; how often reading it paused.
  app.post(
    '/bytes',
    {
      config: { bodyAsBytes: true },
      preParsing: (_req, _reply, payload, done) => {
        const pause = payload.pause.bind(payload);
        payload.pause = () => {
          pauses.count++;
          return pause();
        };
        done(null, payload);
      },
    },
    async (req) => {
      const body = req.body as BodyBytes;
      return { isBytes: body instanceof BodyBytes, text: await body.text() };
    },
  );
  // engram's error handler maps a ValidationError to 400; here its message is enough.
  app.setErrorHandler((error: Error, _req, reply) => reply.status(400).send({ message: error.message }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});
afterAll(() => app.close());
afterEach(() => vi.restoreAllMocks());

/** Posts `parts` as separate writes (so the server reads them as separate chunks). */
function post(
  parts: Buffer[],
  path = '/echo',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  return new Promise((resolve, reject) => {
    const req = request(
      { port, host: '127.0.0.1', method: 'POST', path, headers: { 'content-length': length, ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (text) => {
          body += text;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    const write = (index: number) => {
      if (index === parts.length) return req.end();
      req.write(parts[index]);
      setTimeout(() => write(index + 1), 2);
    };
    write(0);
  });
}

describe('readUtf8Body', () => {
  it('decodes characters split between chunks, and drops a byte-order mark', async () => {
    const bytes = Buffer.from('\uFEFFcafé ☕ 𝄞 end', 'utf8');
    // Cut inside é (2 bytes), ☕ (3 bytes) and 𝄞 (4 bytes).
    const cuts = [5, 9, 13, 18, bytes.length];
    const parts = cuts.map((cut, index) => bytes.subarray(index === 0 ? 0 : cuts[index - 1], cut));
    const answer = await post(parts);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ text: 'café ☕ 𝄞 end' });
  });

  it('refuses bytes that are not UTF-8, in the middle or cut short at the end', async () => {
    const middle = await post([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' au lait')]);
    const refused = { status: 400, body: JSON.stringify({ message: 'There was an error parsing the body' }) };
    expect(middle).toEqual(refused);
    const end = await post([Buffer.from('coffee '), Buffer.from([0xe2, 0x98])]);
    expect(end).toEqual(refused);
  });

  it('decodes a large body chunk by chunk, never the whole of it in one step', async () => {
    const inputs: number[] = [];
    const decode = TextDecoder.prototype.decode;
    vi.spyOn(TextDecoder.prototype, 'decode').mockImplementation(function (this: unknown, input, options) {
      inputs.push(input?.byteLength ?? 0);
      return decode.call(this as never, input, options);
    });
    const line = 'ünïcödé and plain text, '.repeat(40);
    const text = line.repeat(Math.ceil(2_000_000 / line.length));
    const bytes = Buffer.from(text, 'utf8');
    const parts: Buffer[] = [];
    for (let start = 0; start < bytes.length; start += 50_001)
      parts.push(bytes.subarray(start, start + 50_001));
    const answer = await post(parts);
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body) as { text: string }).text === text).toBe(true);
    expect(inputs.reduce((sum, size) => sum + size, 0)).toBe(bytes.length);
    // A socket delivers at most 64 KB at a time.
    expect(Math.max(...inputs)).toBeLessThanOrEqual(64 * 1024);
  });

  it('keeps a large body of a bytes route as its chunks, pausing between slices as it arrives', async () => {
    const text = JSON.stringify({ messages: 'ünïcödé, '.repeat(WORKER_BODY_BYTES / 10) });
    const bytes = Buffer.from(text, 'utf8');
    expect(bytes.length).toBeGreaterThanOrEqual(WORKER_BODY_BYTES);
    const parts: Buffer[] = [];
    for (let start = 0; start < bytes.length; start += 65_536)
      parts.push(bytes.subarray(start, start + 65_536));
    // Each reading of the clock is 5 ms later: every chunk ends a slice.
    let clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (clock += 5));
    pauses.count = 0;
    queuedTurns.length = 0;
    const answer = await post(parts, '/bytes', { 'content-type': 'application/json' });
    vi.restoreAllMocks();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ isBytes: true, text });
    // Kept chunks are counted, not decoded, yet reading them still lets other requests run.
    expect(pauses.count).toBeGreaterThan(parts.length / 2);
    expect(queuedTurns.length).toBeGreaterThanOrEqual(pauses.count);
  });

  it("counts a raw text body's characters as they arrive, against its route's text limit", async () => {
    const markdown = { 'content-type': 'text/markdown' };
    const send = (text: string, headers = markdown) =>
      post(
        // One byte a write: characters arrive split across chunks.
        [...Buffer.from(text, 'utf8')].map((byte) => Buffer.from([byte])),
        '/upload',
        headers,
      );
    // 10 characters (é is one, 😀 two, as `length` counts them) pass; 11 are refused.
    expect(await send('é😀1234567')).toEqual({ status: 200, body: JSON.stringify({ text: 'é😀1234567' }) });
    const over = await send('é😀12345678');
    expect(over.status).toBe(400);
    expect(JSON.parse(over.body).message).toBe(
      'Invalid request: body.content: String should have at most 10 characters',
    );
    // A JSON body is not the raw text: the text limit does not apply to it.
    const json = await send(JSON.stringify('12345678901'), { 'content-type': 'application/json' });
    expect(json.status).toBe(200);
  });

  it("hands a long body to its route turns after the body's end, a short one at once", async () => {
    ticker.running = true;
    const tick = () => {
      ticker.turn++;
      if (ticker.running) setImmediate(tick);
    };
    tick();
    try {
      const send = async (text: string) => {
        const answer = await post([Buffer.from(text)], '/turns');
        return (JSON.parse(answer.body) as { gap: number }).gap;
      };
      expect(await send('x'.repeat(1_000))).toBe(0);
      // The join and the route's parse each get a turn of their own: other requests run between.
      expect(await send('x'.repeat(300_000))).toBeGreaterThanOrEqual(1);
    } finally {
      ticker.running = false;
    }
  });
});
