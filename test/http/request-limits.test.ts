import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_MESSAGES } from '../../src/core/schemas/session.js';
import { MAX_DOCUMENT_CHARS } from '../../src/engine/long-term/knowledge-base.js';
import { useTestServer } from './test-server.js';

const BODY_LIMIT = 6_000_000;

/** A raw request's answer: status, body text and Connection header. */
interface RawAnswer {
  status: number;
  body: string;
  connection?: string;
}

/** Reads `response` whole into `resolve`. */
function readAnswer(response: IncomingMessage, resolve: (answer: RawAnswer) => void): void {
  let body = '';
  response.on('data', (chunk) => {
    body += chunk;
  });
  response.on('end', () =>
    resolve({ status: response.statusCode ?? 0, body, connection: response.headers.connection }),
  );
}
const testServer = useTestServer({ bodyLimitBytes: BODY_LIMIT });

async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await testServer().request(path, { method, body, headers });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON answers
  return { status: response.status, text, body: JSON.parse(text) as any };
}

describe('limits answer before per-item work, in the status AMS uses, without echoing input', () => {
  it('a PUT of more than 100,000 messages is 422 too_long, with a bounded echo', async () => {
    // `{}` items are invalid messages: the answer names only the count, so no item was parsed.
    const messages = `[${Array.from({ length: MAX_SESSION_MESSAGES + 1 }, () => '{}').join(',')}]`;
    const answer = await send('PUT', '/v1/working-memory/big', `{"messages": ${messages}}`);
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([
      {
        type: 'too_long',
        loc: ['body', 'messages'],
        msg: `List should have at most ${MAX_SESSION_MESSAGES} items after validation`,
        input: expect.any(Array),
        ctx: { field_type: 'List', max_length: MAX_SESSION_MESSAGES },
      },
    ]);
    expect(answer.text.length).toBeLessThan(2_000);
    expect(answer.body.detail[0].input).toEqual([`… (more than ${MAX_SESSION_MESSAGES} items)`]);
  });

  it('an over-long list is refused from the raw bytes, before the body is parsed', async () => {
    // Past the limit the body stops being JSON: parsed first, this would be json_invalid.
    const items = Array.from({ length: MAX_SESSION_MESSAGES + 1 }, () => '{}').join(',');
    const answer = await send('PUT', '/v1/working-memory/raw', `{"messages": [${items}, not json at all`);
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0]).toMatchObject({ type: 'too_long', loc: ['body', 'messages'] });
    const memories = Array.from({ length: 1_001 }, () => '{}').join(',');
    const create = await send('POST', '/v1/long-term-memory', `{"memories": [${memories}, oops`);
    expect(create.status).toBe(422);
    expect(create.body.detail[0]).toMatchObject({ type: 'too_long', loc: ['body', 'memories'] });
    // The append extension answers in engram's shape.
    const messages = Array.from({ length: 10_001 }, () => '{}').join(',');
    const append = await send('POST', '/v1/working-memory/raw/messages', `{"messages": [${messages}, oops`);
    expect(append.status).toBe(400);
    expect(append.body.error.code).toBe('validation_failed');
    expect(append.text).toContain('10000');
    // At the limit the list is parsed as usual (here: invalid items, reported by the schema).
    const atLimit = Array.from({ length: 1_000 }, () => '{}').join(',');
    const parsed = await send('POST', '/v1/long-term-memory', `{"memories": [${atLimit}]}`);
    expect(parsed.status).toBe(422);
    expect(parsed.body.detail[0].type).not.toBe('too_long');
  });

  /** Sends `prefix` of a body whose Content-Length promises `length` bytes, and never the rest. */
  function sendPartly(method: string, path: string, type: string, prefix: string, length: number) {
    const { port } = new URL(testServer().url);
    return new Promise<RawAnswer>((resolve, reject) => {
      const request = httpRequest(
        { port, method, path, headers: { 'content-type': type, 'content-length': String(length) } },
        (response) => {
          readAnswer(response, resolve);
        },
      );
      request.on('error', reject);
      request.write(prefix);
    });
  }

  it('an over-long list is refused while the client is still sending the rest of the body', async () => {
    // Content-Length promises 5 MB; only the first 100,001 items (200 KB) are ever sent. A reader
    // that gathered the whole body before counting would wait for the rest and never answer.
    const prefix = `{"messages": [${Array.from({ length: MAX_SESSION_MESSAGES + 1 }, () => '0').join(',')},`;
    const answer = await sendPartly(
      'PUT',
      '/v1/working-memory/streamed',
      'application/json',
      prefix,
      5_000_000,
    );
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.body).detail[0]).toMatchObject({ type: 'too_long', loc: ['body', 'messages'] });
    // The rest of the body is not read: the connection closes after the answer.
    expect(answer.connection).toBe('close');
  });

  it("a document's content over MAX_DOCUMENT_CHARS is refused while the rest is still to come, in JSON or raw", async () => {
    await send('POST', '/v1/agents', { id: 'streamer' });
    const over = 'x'.repeat(MAX_DOCUMENT_CHARS + 1);
    const promised = MAX_DOCUMENT_CHARS + 1_000;
    const answers = [
      await sendPartly(
        'POST',
        '/v1/agents/streamer/knowledge',
        'application/json',
        `{"name": "a.md", "content": "${over}`,
        promised,
      ),
      await sendPartly('POST', '/v1/agents/streamer/knowledge?name=a.md', 'text/markdown', over, promised),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).error.details.issues[0]).toMatchObject({
        type: 'string_too_long',
        loc: ['body', 'content'],
        input: `${'x'.repeat(200)}… (more than ${MAX_DOCUMENT_CHARS} characters)`,
      });
      expect(answer.connection).toBe('close');
    }
  });

  it('keeps the connection open after refusing a body it has read whole', async () => {
    const { port } = new URL(testServer().url);
    const agent = new Agent({ keepAlive: true });
    try {
      const answer = await new Promise<RawAnswer>((resolve, reject) => {
        const request = httpRequest(
          {
            port,
            agent,
            method: 'PUT',
            path: '/v1/working-memory/whole',
            headers: { 'content-type': 'application/json' },
          },
          (response) => {
            readAnswer(response, resolve);
          },
        );
        request.on('error', reject);
        request.end('{"messages": [{"role": "robot", "content": "x"}]}');
      });
      // A refusal (AMS's 422 for an invalid message role), not an accepted write.
      expect(answer.status, answer.body).toBe(422);
      expect(JSON.parse(answer.body).detail[0]).toMatchObject({ loc: ['body', 'messages', 0, 'role'] });
      expect(answer.connection).toBe('keep-alive');
    } finally {
      agent.destroy();
    }
  });

  it('a long-term create of more than 1,000 records is 422 before any record is read', async () => {
    const memories = Array.from({ length: 1_001 }, () => ({}));
    const answer = await send('POST', '/v1/long-term-memory/', { memories });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toHaveLength(1);
    expect(answer.body.detail[0]).toMatchObject({ type: 'too_long', loc: ['body', 'memories'] });
  });

  it('a document over MAX_DOCUMENT_CHARS is refused with a few hundred characters of it, not all of it', async () => {
    await send('POST', '/v1/agents', { id: 'librarian' });
    const content = 'x'.repeat(MAX_DOCUMENT_CHARS + 1);
    const answer = await send('POST', '/v1/agents/librarian/knowledge', { name: 'Huge.md', content });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('validation_failed');
    expect(answer.text.length).toBeLessThan(3_000);
    expect(answer.body.error.details.issues).toEqual([
      {
        type: 'string_too_long',
        loc: ['body', 'content'],
        msg: `String should have at most ${MAX_DOCUMENT_CHARS} characters`,
        input: `${'x'.repeat(200)}… (more than ${MAX_DOCUMENT_CHARS} characters)`,
        ctx: { max_length: MAX_DOCUMENT_CHARS },
      },
    ]);
  });

  it("a document's content over MAX_DOCUMENT_CHARS is refused from the raw bytes, before the body is parsed", async () => {
    await send('POST', '/v1/agents', { id: 'archivist' });
    // Past the limit the body stops being JSON: parsed first, this would be json_invalid.
    const content = `${'é'.repeat(100)}${'x'.repeat(MAX_DOCUMENT_CHARS - 100)}`;
    const body = `{"name": "Huge.md", "content": "${content}\\u00e9 not json at all`;
    const answer = await send('POST', '/v1/agents/archivist/knowledge', body, {
      'content-type': 'application/json',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details.issues[0]).toMatchObject({
      type: 'string_too_long',
      loc: ['body', 'content'],
      input: `${'é'.repeat(100)}${'x'.repeat(100)}… (more than ${MAX_DOCUMENT_CHARS} characters)`,
    });
  });

  it('a body over the limit is 413 naming the limit in bytes and the setting that raises it', async () => {
    const answer = await send('PUT', '/v1/working-memory/huge', { context: 'x'.repeat(BODY_LIMIT) });
    expect(answer.status).toBe(413);
    expect(answer.body.detail).toContain(`${BODY_LIMIT} bytes`);
    expect(answer.body.detail).toContain('ENGRAM_BODY_LIMIT_BYTES');
    expect(answer.body.detail).toContain('bodyLimitBytes');
    const engramShape = await send('POST', '/v1/agents', { id: 'x'.repeat(BODY_LIMIT) });
    expect(engramShape.status).toBe(413);
    expect(engramShape.body.error.message).toContain(`${BODY_LIMIT} bytes`);
  });

  it('a body sent without Content-Length is 413 once the bytes received pass the limit', async () => {
    // A stream body goes out chunked: the limit can only be seen in the bytes as they arrive.
    const chunk = new TextEncoder().encode('x'.repeat(1_000_000));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > BODY_LIMIT) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${testServer().url}/v1/working-memory/chunked`, {
      method: 'PUT',
      body,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.text()).toContain(`${BODY_LIMIT} bytes`);
  });
});
