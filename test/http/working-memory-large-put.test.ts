import { describe, expect, it } from 'vitest';
import { MAX_SESSION_MESSAGES } from '../../src/core/schemas/session.js';
import { toWorkingMemoryResponse } from '../../src/server/ams/working-memory-mapper.js';
import { amsWorkingMemoryBodySchema } from '../../src/server/ams/working-memory-schemas.js';
import { SLICED_JSON_CHARS } from '../../src/server/read-json-body.js';
import type { RequestValidationError } from '../../src/server/request-validation-error.js';
import { validateRequest } from '../../src/server/validate-request.js';
import { stringifiedWhole } from '../support/stringified-whole.js';
import { useTestServer } from './test-server.js';

// 100,000 short messages are about 6 MB of JSON: over the default 1 MiB body limit.
const testServer = useTestServer({ bodyLimitBytes: 16_000_000 });
const past = '2024-05-01T10:00:00.000Z';

/** Counts turns of the event loop (one per check phase) until stopped. */
function countTurns() {
  let turns = 0;
  let running = true;
  const turn = () => {
    turns++;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  return () => {
    running = false;
    return turns;
  };
}

async function put(id: string, body: unknown) {
  const stop = countTurns();
  const response = await testServer().request(`/v1/working-memory/${id}`, { method: 'PUT', body });
  const text = await response.text();
  const length = response.headers.get('content-length');
  return { status: response.status, text, length, turns: stop() };
}

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

  it('a valid PUT stores every message in order and answers the bytes the unsliced route wrote', async () => {
    const messages = messagesOf(20_000);
    const answer = await put('many', { messages, data: { a: 1 }, context: 'summary' });
    expect(answer.status).toBe(200);
    const stored = await testServer().engram.sessions.get({ sessionId: 'many' }, { includeSummarized: true });
    expect(stored?.messages.map((message) => message.content)).toEqual(messages.map((m) => m.content));
    expect(stored?.messages.map((message) => message.seq)).toEqual(messages.map((_, index) => index + 1));
    if (!stored) return;
    const before = toWorkingMemoryResponse(stored, stored.messages, null, {
      wholeSeconds: false,
      nullDataAsEmpty: false,
    });
    // The background summarizer may have replaced `context` (and so the times) since the answer.
    const answered = JSON.parse(answer.text);
    expect(answered.context).toBe('summary');
    const { context, last_accessed, updated_at } = answered;
    expect(answer.text).toBe(JSON.stringify({ ...before, context, last_accessed, updated_at }));
    // Written chunk by chunk, with its length (not chunked transfer encoding).
    expect(answer.length).toBe(String(Buffer.byteLength(answer.text)));
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
