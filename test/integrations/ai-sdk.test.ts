import { generateText, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngramClient } from '../../src/client/index.js';
import { createEngram, type Engram } from '../../src/engram.js';
import { engramMiddleware } from '../../src/integrations/ai-sdk/index.js';
import { createMemoryStore } from '../../src/stores/memory/memory-store.js';
import { useTestServer } from '../http/test-server.js';

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

/** A mock model that answers `answer` and remembers the prompts it was called with. */
function mockModel(answer: string) {
  return new MockLanguageModelV2({
    doGenerate: async () => ({
      content: [{ type: 'text', text: answer }],
      finishReason: 'stop',
      usage,
      warnings: [],
    }),
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: 'text-start', id: 't' },
          ...answer.split(/(?<= )/).map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: 'stop', usage },
        ],
      }),
    }),
  });
}

/** The texts of the prompt a mock model was last called with, as `role: text`. */
function promptOf(model: MockLanguageModelV2, kind: 'generate' | 'stream'): string[] {
  const calls = kind === 'generate' ? model.doGenerateCalls : model.doStreamCalls;
  return (calls.at(-1)?.prompt ?? []).map((message) =>
    typeof message.content === 'string'
      ? `${message.role}: ${message.content}`
      : `${message.role}: ${message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')}`,
  );
}

describe('engramMiddleware with an Engram instance', () => {
  let engram: Engram;
  const session = { sessionId: 'ai-sdk-1', userId: 'ada' };
  beforeAll(async () => {
    engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    await engram.agents.create('default', { id: 'default', systemPrompt: 'You are Acme support.' });
    await engram.memories.create('default', [
      { text: 'Ada prefers replacements over refunds.', userId: 'ada' },
    ]);
    await engram.sessions.append(session, [
      { role: 'user', content: 'My order #1234 arrived damaged.' },
      { role: 'assistant', content: 'Sorry! Refund or replacement?' },
    ]);
  });
  afterAll(async () => engram.close());

  it('generateText: the model sees engram’s context, and the turn is stored after', async () => {
    const model = mockModel('A replacement is on its way.');
    const wrapped = wrapLanguageModel({ model, middleware: engramMiddleware({ engram, session }) });
    const { text } = await generateText({ model: wrapped, prompt: 'A replacement, please.' });
    expect(text).toBe('A replacement is on its way.');
    const prompt = promptOf(model, 'generate');
    expect(prompt[0]).toBe('system: You are Acme support.');
    expect(prompt.join('\n')).toContain('Ada prefers replacements over refunds.');
    expect(prompt).toContain('user: My order #1234 arrived damaged.');
    expect(prompt.at(-1)).toBe('user: A replacement, please.');
    const stored = await engram.sessions.get(session);
    expect(stored?.messages.slice(-2).map((message) => [message.role, message.content])).toEqual([
      ['user', 'A replacement, please.'],
      ['assistant', 'A replacement is on its way.'],
    ]);
  });

  it('streamText: the answer streams unchanged and is stored once it has finished', async () => {
    const model = mockModel('It ships tomorrow.');
    const wrapped = wrapLanguageModel({ model, middleware: engramMiddleware({ engram, session }) });
    const result = streamText({ model: wrapped, prompt: 'When does it ship?' });
    let streamed = '';
    for await (const delta of result.textStream) streamed += delta;
    expect(streamed).toBe('It ships tomorrow.');
    // The previous turn (from generateText) is now part of the history the model saw.
    expect(promptOf(model, 'stream')).toContain('assistant: A replacement is on its way.');
    const stored = await engram.sessions.get(session);
    expect(stored?.messages.slice(-2).map((message) => message.content)).toEqual([
      'When does it ship?',
      'It ships tomorrow.',
    ]);
  });

  it('keeps the caller’s system messages first, and stores nothing with appendTurn: false', async () => {
    const model = mockModel('Noted.');
    const other = { sessionId: 'ai-sdk-2' };
    const middleware = engramMiddleware({ engram, session: other, appendTurn: false });
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      system: 'Answer briefly.',
      prompt: 'Hi',
    });
    expect(promptOf(model, 'generate').slice(0, 2)).toEqual([
      'system: Answer briefly.',
      'system: You are Acme support.',
    ]);
    expect(await engram.sessions.get(other)).toBeNull();
  });
});

describe('engramMiddleware in tool loops, failing streams and a failing engram', () => {
  let engram: Engram;
  beforeAll(async () => {
    engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
  });
  afterAll(async () => engram.close());
  const contents = async (sessionId: string) =>
    (await engram.sessions.get({ sessionId }))?.messages.map(
      (message) => `${message.role}: ${message.content}`,
    );

  it('a tool loop: the next step sees the tool call and its result, and only the final answer is stored', async () => {
    const prompts: string[][] = [];
    const model = new MockLanguageModelV2({
      doGenerate: async ({ prompt }) => {
        prompts.push(prompt.map((message) => message.role));
        if (!prompt.some((message) => message.role === 'tool'))
          return {
            content: [
              { type: 'text', text: 'Let me look.' },
              { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: '{"city":"Paris"}' },
            ],
            finishReason: 'tool-calls',
            usage,
            warnings: [],
          };
        return {
          content: [{ type: 'text', text: 'Sunny in Paris.' }],
          finishReason: 'stop',
          usage,
          warnings: [],
        };
      },
    });
    const middleware = engramMiddleware({ engram, session: { sessionId: 'tools' } });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      prompt: 'Weather in Paris?',
      tools: { weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => 'sunny' }) },
      stopWhen: stepCountIs(4),
    });
    expect(result.text).toBe('Sunny in Paris.');
    expect(prompts).toEqual([
      ['system', 'user'],
      ['system', 'user', 'assistant', 'tool'],
    ]);
    expect(await contents('tools')).toEqual(['user: Weather in Paris?', 'assistant: Sunny in Paris.']);
  });

  it('a stream that fails part-way (an error part, then a normal close) stores nothing', async () => {
    const model = new MockLanguageModelV2({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'Your refund of $' },
            { type: 'error', error: new Error('upstream overloaded') },
          ],
        }),
      }),
    });
    const middleware = engramMiddleware({ engram, session: { sessionId: 'broken-stream' } });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware }),
      prompt: 'Refund?',
      onError: () => {},
    });
    for await (const _part of result.fullStream);
    expect(await engram.sessions.get({ sessionId: 'broken-stream' })).toBeNull();
  });

  it('with onError, a failing engram degrades the call: the caller’s prompt, the answer returned', async () => {
    const failing = {
      ...engram,
      assemble: async () => {
        throw new Error('store down');
      },
      sessions: {
        ...engram.sessions,
        append: async () => {
          throw new Error('store down');
        },
      },
    } as unknown as Engram;
    const model = mockModel('Still here.');
    const events: string[] = [];
    const middleware = engramMiddleware({
      engram: failing,
      session: { sessionId: 'degraded' },
      onError: (error, event) =>
        events.push(
          `${event.phase}: ${(error as Error).message}: ${'answer' in event ? event.answer : event.message}`,
        ),
    });
    const { text } = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      prompt: 'Hello?',
    });
    expect(text).toBe('Still here.');
    expect(promptOf(model, 'generate')).toEqual(['user: Hello?']);
    expect(events).toEqual(['assemble: store down: Hello?', 'append: store down: Still here.']);
    // Without onError the failure is the caller's to see.
    const strict = engramMiddleware({ engram: failing, session: { sessionId: 'degraded' } });
    await expect(
      generateText({ model: wrapLanguageModel({ model, middleware: strict }), prompt: 'Hello?' }),
    ).rejects.toThrow('store down');
  });
});

describe('engramMiddleware with the HTTP client', () => {
  const server = useTestServer();

  it('assembles through POST /v1/context and appends through the server', async () => {
    const client = createEngramClient({ baseUrl: server().url });
    await client.sessions.append('ai-sdk-http', { messages: [{ role: 'user', content: 'I am Grace.' }] });
    const model = mockModel('Hello Grace.');
    const middleware = engramMiddleware({ client, session: () => ({ sessionId: 'ai-sdk-http' }) });
    const result = streamText({ model: wrapLanguageModel({ model, middleware }), prompt: 'Who am I?' });
    expect(await result.text).toBe('Hello Grace.');
    expect(promptOf(model, 'stream')).toEqual(
      expect.arrayContaining(['user: I am Grace.', 'user: Who am I?']),
    );
    const session = await client.sessions.get('ai-sdk-http');
    expect(session.messages.map((message) => message.content)).toEqual([
      'I am Grace.',
      'Who am I?',
      'Hello Grace.',
    ]);
    expect(() => engramMiddleware({ session: { sessionId: 'x' } })).toThrow(/one of engram or client/);
  });
});
