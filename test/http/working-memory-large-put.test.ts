import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_MESSAGES } from '../../src/core/schemas/session.js';
import { createEngram } from '../../src/engram.js';
import { fitContextWindow } from '../../src/server/ams/fit-context-window.js';
import { toWorkingMemoryResponse } from '../../src/server/ams/working-memory-mapper.js';
import { preparedOffThread } from '../../src/server/ams/working-memory-put-thread.js';
import { amsWorkingMemoryBodySchema } from '../../src/server/ams/working-memory-schemas.js';
import { createServer } from '../../src/server/create-server.js';
import { WORKER_BODY_BYTES } from '../../src/server/parse-utf8-body.js';
import { SLICED_JSON_CHARS } from '../../src/server/read-json-body.js';
import type { RequestValidationError } from '../../src/server/request-validation-error.js';
import { validateRequest } from '../../src/server/validate-request.js';
import { createWorkerStore } from '../../src/stores/worker/worker-store.js';
import { countLoopTurns } from '../support/loop-turns.js';
import { stringifiedWhole } from '../support/stringified-whole.js';
import { useTestServer } from './test-server.js';

// 100,000 short messages are about 6 MB of JSON: over the default 1 MiB body limit.
const testServer = useTestServer({ bodyLimitBytes: 16_000_000 });
const past = '2024-05-01T10:00:00.000Z';

async function put(id: string, body: unknown) {
  const { stop } = countLoopTurns();
  const response = await testServer().request(`/v1/working-memory/${id}`, { method: 'PUT', body });
  const text = await response.text();
  const length = response.headers.get('content-length');
  return { status: response.status, text, length, turns: stop() };
}

/** Enough short messages for a body of WORKER_BODY_BYTES or more (read by the PUT worker). */
const WORKER_MESSAGES = 60_000;

const messagesOf = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    role: index % 2 ? 'assistant' : 'user',
    content: `message ${index}`,
    created_at: past,
  }));

describe('a PUT of many messages lets other requests run, with the same answers as before', () => {
  it('a bad message in a late slice: the same 422 as the whole-body validation, after many turns', async () => {
    const messages: unknown[] = messagesOf(MAX_SESSION_MESSAGES);
    messages[MAX_SESSION_MESSAGES - 3] = { role: 'robot', content: 'x' };
    // The same bytes but one message more: refused on its length, before any message is read.
    const early = await put('late-bad', { messages: [...messages, messages[0]] });
    const late = await put('late-bad', { messages });
    expect(early.status).toBe(422);
    expect(late.status).toBe(422);
    let expected: unknown;
    try {
      validateRequest(amsWorkingMemoryBodySchema, { messages }, 'body');
    } catch (error) {
      expected = (error as RequestValidationError).details;
    }
    expect(JSON.parse(late.text).detail).toEqual(expected);
    expect(JSON.parse(late.text).detail[0].loc).toEqual([
      'body',
      'messages',
      MAX_SESSION_MESSAGES - 3,
      'role',
    ]);
    // Validating 100,000 messages takes far more than one ~10 ms slice: the loop turned in between
    // (synchronous validation gives both requests the same turns, those of the transfer alone).
    expect(late.turns).toBeGreaterThan(early.turns + 5);
    expect(await testServer().engram.sessions.get({ sessionId: 'late-bad' })).toBeNull();
  });

  it('a large body, parsed in slices, gets the errors of a whole-body parse', async () => {
    const text = JSON.stringify({ messages: messagesOf(50_000) });
    expect(text.length).toBeGreaterThan(SLICED_JSON_CHARS);
    // Malformed JSON late in the list: json_invalid at the offset JSON.parse reports.
    const cut = text.lastIndexOf('},{');
    const malformed = `${text.slice(0, cut + 1)};${text.slice(cut + 2)}`;
    let message = '';
    try {
      JSON.parse(malformed);
    } catch (error) {
      message = (error as Error).message;
    }
    const invalid = await put('sliced-bad', malformed);
    expect(invalid.status).toBe(422);
    expect(JSON.parse(invalid.text).detail).toEqual([
      {
        type: 'json_invalid',
        loc: ['body', Number(/at position (\d+)/.exec(message)?.[1])],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: message },
      },
    ]);
    // Keys named __proto__ and over-deep nesting, inside a late item.
    const proto = `${text.slice(0, cut + 3)}"__proto__":{},${text.slice(cut + 3)}`;
    const refused = await put('sliced-proto', proto);
    expect(refused.status).toBe(422);
    expect(JSON.parse(refused.text).detail[0].msg).toBe(
      'Value error, JSON keys named __proto__ are not allowed',
    );
    const deep = `${text.slice(0, cut + 3)}"data":${'['.repeat(70)}${']'.repeat(70)},${text.slice(cut + 3)}`;
    const tooDeep = await put('sliced-deep', deep);
    expect(tooDeep.status).toBe(422);
    expect(JSON.parse(tooDeep.text).detail[0].msg).toMatch(/nested deeper than 64 levels/);
    expect(await testServer().engram.sessions.get({ sessionId: 'sliced-bad' })).toBeNull();
  });

  it('a blank message in a late slice is the 400 naming that message', async () => {
    const messages: unknown[] = messagesOf(20_000);
    messages[19_990] = { role: 'user', content: '  ', id: 'blank-late' };
    const answer = await put('late-blank', { messages });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({
      detail: 'Message content cannot be empty (message ID: blank-late)',
    });
    expect(await testServer().engram.sessions.get({ sessionId: 'late-blank' })).toBeNull();
  });

  it.each([
    ['on the request thread, in slices', 20_000, 0],
    ['by the PUT worker', WORKER_MESSAGES, 1],
  ])(
    'a valid PUT read %s stores every message in order and answers the bytes the unsliced route wrote',
    async (_way, count, workerJobs) => {
      const messages = messagesOf(count);
      expect(Buffer.byteLength(JSON.stringify({ messages })) >= WORKER_BODY_BYTES).toBe(workerJobs > 0);
      const before = preparedOffThread();
      const answer = await put(`many-${count}`, { messages, data: { a: 1 }, context: 'summary' });
      expect(answer.status).toBe(200);
      expect(preparedOffThread()).toBe(before + workerJobs);
      const stored = await testServer().engram.sessions.get(
        { sessionId: `many-${count}` },
        { includeSummarized: true },
      );
      expect(stored?.messages.map((message) => message.content)).toEqual(messages.map((m) => m.content));
      expect(stored?.messages.map((message) => message.seq)).toEqual(messages.map((_, index) => index + 1));
      if (!stored) return;
      const expected = toWorkingMemoryResponse(stored, stored.messages, null, {
        wholeSeconds: false,
        nullDataAsEmpty: false,
      });
      // The background summarizer may have replaced `context` (and so the times) since the answer.
      const answered = JSON.parse(answer.text);
      expect(answered.context).toBe('summary');
      const { context, last_accessed, updated_at } = answered;
      expect(answer.text).toBe(JSON.stringify({ ...expected, context, last_accessed, updated_at }));
      // Written chunk by chunk, with its length (not chunked transfer encoding).
      expect(answer.length).toBe(String(Buffer.byteLength(answer.text)));
    },
  );

  it('off the request thread too: the model usage, the undated warning, If-Match and bodies that fail', async () => {
    // Without dates the messages are shorter: as many as a PUT may carry, to reach the worker.
    const undated = messagesOf(MAX_SESSION_MESSAGES).map(({ created_at: _date, ...message }) => message);
    const before = preparedOffThread();
    const response = await testServer().request('/v1/working-memory/off?context_window_max=200000', {
      method: 'PUT',
      body: { messages: undated },
    });
    expect(response.status).toBe(200);
    expect(preparedOffThread()).toBe(before + 1);
    expect(response.headers.get('x-deprecation-warning')).toMatch(/created_at will become required/);
    const answered = (await response.json()) as Record<string, unknown> & { messages: { id: string }[] };
    const stored = await testServer().engram.sessions.get({ sessionId: 'off' }, { includeSummarized: true });
    if (!stored) throw new Error('not stored');
    const { usage } = await fitContextWindow(stored.messages, 200_000, { truncate: false });
    expect(answered.context_percentage_total_used).toBe(usage.totalUsed);
    expect(answered.context_percentage_until_summarization).toBe(usage.untilSummarization);
    expect(answered.messages.map((message: { id: string }) => message.id)).toEqual(
      stored.messages.map((message) => message.id),
    );
    // A stale If-Match: 412, and nothing is replaced.
    const stale = await testServer().request('/v1/working-memory/off', {
      method: 'PUT',
      body: { messages: messagesOf(WORKER_MESSAGES) },
      headers: { 'if-match': '"999"' },
    });
    expect(stale.status).toBe(412);
    // (The summarizer may have moved the version since; the messages are those of the first PUT.)
    const after = await testServer().engram.sessions.get({ sessionId: 'off' }, { includeSummarized: true });
    expect(after?.messages.map((message) => message.id)).toEqual(
      stored.messages.map((message) => message.id),
    );
    // Not UTF-8: the 400 a short body gets. The worker hands such bodies back unprepared.
    const bytes = Buffer.from(JSON.stringify({ messages: messagesOf(WORKER_MESSAGES) }));
    bytes[bytes.indexOf('message 59999')] = 0xff;
    const refused = await fetch(`${testServer().url}/v1/working-memory/not-utf8`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: bytes,
    });
    const short = await fetch(`${testServer().url}/v1/working-memory/not-utf8`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0xff, 0x7d]),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(await short.json());
    expect(preparedOffThread()).toBe(before + 2);
  });

  it('a GET of a large session answers the bytes of a whole serialization, in slices, summarized marks included', async () => {
    const messages = messagesOf(20_000);
    expect((await put('many-get', { messages })).status).toBe(200);
    for (const query of ['', '?include_summarized=true']) {
      const { result: response, whole } = await stringifiedWhole('messages', () =>
        testServer().request(`/v1/working-memory/many-get${query}`),
      );
      // Never serialized whole: one message at a time (between slices), then the rest.
      expect(whole).toEqual([]);
      const text = await response.text();
      expect(response.status).toBe(200);
      // The bytes JSON.stringify writes for the answer's value (the summarizer may run at any time,
      // so the answer is compared with itself and with what was put, not with a second read).
      const answered = JSON.parse(text) as { messages: { content: string; summarized?: boolean }[] };
      expect(text).toBe(JSON.stringify(answered));
      const contents = answered.messages.map((message) => message.content);
      expect(contents).toEqual(messages.slice(messages.length - contents.length).map((m) => m.content));
      if (query) {
        expect(contents).toHaveLength(messages.length);
        expect(answered.messages.every((message) => typeof message.summarized === 'boolean')).toBe(true);
      } else expect(answered.messages.some((message) => 'summarized' in message)).toBe(false);
      expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    }
  });
});

describe('a large PUT over a store thread (as `engram serve` runs)', () => {
  it('moves the encoded messages to the store thread and answers as the request-thread path', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'engram-large-put-'));
    const store = await createWorkerStore({
      driver: 'sqlite',
      options: { path: join(directory, 'engram.db') },
    });
    const engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: false });
    const server = createServer({
      engram,
      config: { port: 0, logLevel: 'silent', bodyLimitBytes: 16_000_000 },
    });
    try {
      expect(store.capabilities.encodedMessages).toBe(true);
      const { url } = await server.listen();
      const messages = messagesOf(WORKER_MESSAGES);
      const before = preparedOffThread();
      const response = await fetch(`${url}/v1/working-memory/threaded`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages, data: { a: 1 } }),
      });
      expect(response.status).toBe(200);
      expect(preparedOffThread()).toBe(before + 1);
      const answered = (await response.json()) as Record<string, unknown> & { messages: { id: string }[] };
      const stored = await engram.sessions.get({ sessionId: 'threaded' }, { includeSummarized: true });
      expect(stored?.messages.map((message) => message.content)).toEqual(messages.map((m) => m.content));
      expect(answered.messages.map((message: { id: string }) => message.id)).toEqual(
        stored?.messages.map((message) => message.id),
      );
      expect(answered.data).toEqual({ a: 1 });
    } finally {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
