import { afterEach, describe, expect, it } from 'vitest';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../../test/support/scripted-openai-server.js';
import { LlmError } from './llm-error.js';
import type { ChatChunk } from './llm-provider.js';
import { createOpenAIChatProvider, type OpenAIChatProviderOptions } from './openai-chat-provider.js';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(options: Partial<OpenAIChatProviderOptions> = {}) {
  server = await startScriptedOpenAIServer();
  const provider = createOpenAIChatProvider({ baseUrl: `${server.baseUrl}/`, model: 'scripted', ...options });
  return { server, provider };
}

const ask = { messages: [{ role: 'user' as const, content: 'Hi?' }] };

async function errorOf(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

/** An error's message and its causes' messages. */
function messagesOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return `${(error as Error).message} ${cause === undefined ? '' : messagesOf(cause)}`;
}

async function collect(chunks: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const all: ChatChunk[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe('OpenAI-compatible chat provider', () => {
  it('posts the conversation and returns the answer, finish reason and usage', async () => {
    const { server, provider } = await setup({ apiKey: 'secret', headers: { 'x-org': 'acme' } });
    server.script({ content: 'Hello there.' });
    const answer = await provider.complete({ ...ask, maxTokens: 50, stop: ['\n\n'] });
    expect(answer).toEqual({
      content: 'Hello there.',
      finishReason: 'stop',
      usage: { promptTokens: 10, completionTokens: 12 },
      model: 'scripted-model',
    });
    expect(provider.model).toBe('openai:scripted');
    const [request] = server.requests;
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer secret');
    expect(request?.headers['x-org']).toBe('acme');
    expect(request?.body).toEqual({
      model: 'scripted',
      messages: ask.messages,
      temperature: 0,
      max_tokens: 50,
      stop: ['\n\n'],
    });
  });

  it('asks for a JSON object only when the request wants JSON and the server accepts the field', async () => {
    const { server, provider } = await setup();
    server.script({ content: '{}' }, { content: '{}' });
    await provider.complete({ ...ask, json: true });
    expect(server.requests[0]?.body.response_format).toEqual({ type: 'json_object' });
    const plain = createOpenAIChatProvider({
      baseUrl: server.baseUrl,
      model: 'm',
      jsonResponseFormat: false,
    });
    await plain.complete({ ...ask, json: true });
    expect(server.requests[1]?.body).not.toHaveProperty('response_format');
  });

  it('streams the answer chunk by chunk, ending at [DONE] or at a finish reason', async () => {
    const { server, provider } = await setup();
    server.script({ content: 'One two three.' }, { content: 'x', chunks: ['a', 'b'], omitDone: true });
    const chunks = await collect(provider.stream(ask));
    expect(server.requests[0]?.body.stream).toBe(true);
    expect(chunks.map((chunk) => chunk.delta).join('')).toBe('One two three.');
    expect(chunks.at(-1)?.finishReason).toBe('stop');
    expect(chunks.filter((chunk) => chunk.delta !== '').length).toBe(3);
    const withoutDone = await collect(provider.stream(ask));
    expect(withoutDone.map((chunk) => chunk.delta).join('')).toBe('ab');
  });

  it('reports a stream cut off mid-answer, or carrying an error event, as retryable', async () => {
    const { server, provider } = await setup();
    server.script(
      { raw: 'data: {"choices":[{"delta":{"content":"par"}}]}\n\n', contentType: 'text/event-stream' },
      { raw: 'data: {"error":{"message":"overloaded"}}\n\n', contentType: 'text/event-stream' },
    );
    const cut = await errorOf(collect(provider.stream(ask)));
    expect(cut).toMatchObject({ code: 'llm_response_invalid', retryable: true });
    const failed = await errorOf(collect(provider.stream(ask)));
    expect(failed).toMatchObject({ code: 'llm_unavailable', retryable: true });
  });

  it('never quotes what the server answered in a message or its causes (it may echo the prompt)', async () => {
    const { server, provider } = await setup();
    server.script(
      { raw: 'data: not json ZEBRA-SECRET-4711\n\n', contentType: 'text/event-stream' },
      { raw: 'ZEBRA-SECRET-4711' },
    );
    const stream = await errorOf(collect(provider.stream(ask)));
    const complete = await errorOf(provider.complete(ask));
    for (const error of [stream, complete]) {
      expect(error.code).toBe('llm_response_invalid');
      expect(messagesOf(error)).not.toContain('ZEBRA');
    }
  });

  it('maps 429 with Retry-After to a retryable rate-limit error that says how long to wait', async () => {
    const { server, provider } = await setup();
    server.script(
      { status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'slow down' } } },
      { status: 429, headers: { 'retry-after-ms': '250' } },
      { status: 429 },
    );
    expect(await errorOf(provider.complete(ask))).toMatchObject({
      code: 'llm_rate_limited',
      retryable: true,
      retryAfterMs: 7_000,
      category: 'unavailable',
    });
    expect((await errorOf(provider.complete(ask))).retryAfterMs).toBe(250);
    expect((await errorOf(provider.complete(ask))).retryAfterMs).toBeUndefined();
  });

  it('makes 5xx retryable and other 4xx final', async () => {
    const { server, provider } = await setup();
    server.script({ status: 503 }, { status: 401, body: { error: { message: 'bad key' } } });
    expect(await errorOf(provider.complete(ask))).toMatchObject({ code: 'llm_unavailable', retryable: true });
    const rejected = await errorOf(provider.complete(ask));
    expect(rejected).toMatchObject({ code: 'llm_request_rejected', retryable: false });
    expect(rejected.details?.body).toContain('bad key');
  });

  it('rejects answers that do not follow the protocol', async () => {
    const { server, provider } = await setup();
    server.script({ raw: '<html>proxy error</html>' }, { raw: '{"choices":[]}' });
    expect((await errorOf(provider.complete(ask))).code).toBe('llm_response_invalid');
    expect((await errorOf(provider.complete(ask))).message).toContain('choices');
  });

  it('times out a silent server, and a stalled stream', async () => {
    const { server, provider } = await setup({ timeoutMs: 100 });
    server.script({ hang: true }, { hang: true });
    expect(await errorOf(provider.complete(ask))).toMatchObject({ code: 'llm_timeout', retryable: true });
    expect((await errorOf(collect(provider.stream(ask)))).code).toBe('llm_timeout');
  });

  it('reports an unreachable server as unavailable', async () => {
    const { server, provider } = await setup();
    await server.close();
    expect(await errorOf(provider.complete(ask))).toMatchObject({ code: 'llm_unavailable', retryable: true });
  });

  it('names its endpoint without the key a base URL carries (user info, query)', async () => {
    const { server } = await setup();
    server.script({ status: 500 });
    const withQuery = createOpenAIChatProvider({ baseUrl: `${server.baseUrl}?api-key=s3cret`, model: 'm' });
    const rejected = await errorOf(withQuery.complete(ask));
    expect(rejected.message).toContain('api-key=***');
    // fetch refuses credentials in a URL with a message that quotes it.
    const withUser = createOpenAIChatProvider({
      baseUrl: server.baseUrl.replace('//', '//me:k3y@'),
      model: 'm',
    });
    const refused = await errorOf(withUser.complete(ask));
    expect(refused.message).toContain('***:***@');
    for (const error of [rejected, refused]) {
      expect(`${messagesOf(error)} ${(error.cause as Error | undefined)?.stack}`).not.toMatch(
        /s3cret|k3y|me:/,
      );
    }
  });

  it('rejects with the caller’s abort reason, not an LlmError', async () => {
    const { server, provider } = await setup();
    server.script({ hang: true });
    const controller = new AbortController();
    const pending = provider.complete({ ...ask, signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('validates its options', () => {
    expect(() => createOpenAIChatProvider({ baseUrl: 'not a url', model: 'm' })).toThrow(/baseUrl/);
  });
});
