import { describe, expect, it } from 'vitest';
import { EngramError } from '../../core/errors.js';
import { createEngram } from '../../engram.js';
import { LlmError } from '../../providers/llm/llm-error.js';
import type { ChatChunk, ChatRequest, LlmProvider } from '../../providers/llm/llm-provider.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { type ChatEvent, toChatMessages } from './chat-turn.js';

const session = { sessionId: 'chat', userId: 'ada' };

/**
 * A model that streams `pieces`, each once `gate` lets it (a promise per piece; default: at once),
 * and throws `failAfter` pieces when asked. Honours the request's signal like the real provider.
 */
function fakeModel(pieces: string[], options: { gate?: () => Promise<void>; failAfter?: number } = {}) {
  const requests: ChatRequest[] = [];
  const state = { stopped: false };
  const provider: LlmProvider = {
    model: 'fake:model',
    complete: () => Promise.reject(new Error('not used')),
    async *stream(request): AsyncGenerator<ChatChunk> {
      requests.push(request);
      try {
        for (const [index, piece] of pieces.entries()) {
          await options.gate?.();
          request.signal?.throwIfAborted();
          if (index === options.failAfter) throw new LlmError('llm_unavailable', 'stream broke');
          yield { delta: piece, finishReason: index === pieces.length - 1 ? 'stop' : null };
        }
      } finally {
        state.stopped = true;
      }
    },
  };
  return { provider, requests, state };
}

/** A gate the test opens one step at a time. */
function stepper() {
  const waiting: (() => void)[] = [];
  return {
    gate: () => new Promise<void>((resolve) => waiting.push(resolve)),
    async step() {
      while (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      waiting.shift()?.();
    },
  };
}

const engramWith = (llm?: LlmProvider) =>
  createEngram({
    store: createMemoryStore(),
    sweepIntervalMs: 0,
    defaultSources: false,
    ...(llm ? { llm } : {}),
  });

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const seen: ChatEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('engram.chat', () => {
  it('streams deltas, then stores the user message and the answer together', async () => {
    const model = fakeModel(['Hello ', 'Ada']);
    const engram = await engramWith(model.provider);
    const turn = await engram.chat({ session, message: 'Hi there' });
    const events = await collect(turn);
    expect(events.slice(0, 2)).toEqual([
      { type: 'delta', text: 'Hello ' },
      { type: 'delta', text: 'Ada' },
    ]);
    const result = await turn.result;
    expect(events[2]).toEqual({ type: 'done', result });
    // Every reader gets every event from the start.
    expect(await collect(turn)).toEqual(events);
    expect(result.agent).toEqual({ id: 'default', version: 0 });
    expect(result.messages.user).toMatchObject({ role: 'user', content: 'Hi there', seq: 1 });
    expect(result.messages.assistant).toMatchObject({ role: 'assistant', content: 'Hello Ada', seq: 2 });
    expect(result.session.messageCount).toBe(2);
    expect(model.requests[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'Hi there' });
    expect((await engram.traces.list(session)).total).toBe(1);
    await engram.close();
  });

  it('uses an inline agent’s prompt and output budget', async () => {
    const model = fakeModel(['Arr.']);
    const engram = await engramWith(model.provider);
    const turn = await engram.chat({
      agent: { id: 'pirate', systemPrompt: 'Talk like a pirate.', memory: { reservedOutputTokens: 300 } },
      session,
      message: 'Hello',
    });
    expect((await turn.result).agent).toEqual({ id: 'pirate', version: null });
    expect(model.requests[0]?.messages[0]).toEqual({ role: 'system', content: 'Talk like a pirate.' });
    expect(model.requests[0]?.maxTokens).toBe(300);
    await engram.close();
  });

  it('runs the turn to the end and stores it when the reader stops early', async () => {
    const model = fakeModel(['a ', 'b ', 'c']);
    const engram = await engramWith(model.provider);
    const turn = await engram.chat({ session, message: 'Say abc' });
    for await (const event of turn) {
      expect(event).toEqual({ type: 'delta', text: 'a ' });
      break;
    }
    expect((await turn.result).messages.assistant.content).toBe('a b c');
    await engram.close();
  });

  it('stores nothing when the caller aborts mid-stream, and stops the model', async () => {
    const { gate, step } = stepper();
    const model = fakeModel(['one ', 'two ', 'three'], { gate });
    const engram = await engramWith(model.provider);
    const controller = new AbortController();
    const starting = engram.chat({ session, message: 'Count', signal: controller.signal });
    await step();
    const turn = await starting;
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    await step();
    await expect(turn.result).rejects.toBe(reason);
    await expect(collect(turn)).rejects.toBe(reason);
    expect(model.state.stopped).toBe(true);
    expect(await engram.sessions.get(session)).toBeNull();
    await engram.close();
  });

  it('fails without storing when the model breaks mid-stream or before any text', async () => {
    const engram = await engramWith(fakeModel(['partial ', 'rest'], { failAfter: 1 }).provider);
    const turn = await engram.chat({ session, message: 'Go' });
    await expect(collect(turn)).rejects.toMatchObject({ code: 'llm_unavailable' });
    await expect(turn.result).rejects.toBeInstanceOf(LlmError);
    expect(await engram.sessions.get(session)).toBeNull();
    await engram.close();

    const early = await engramWith(fakeModel(['x'], { failAfter: 0 }).provider);
    await expect(early.chat({ session, message: 'Go' })).rejects.toMatchObject({ code: 'llm_unavailable' });
    await early.close();

    const silent = await engramWith(fakeModel(['', '  ']).provider);
    const blank = silent.chat({ session, message: 'Go' });
    await expect(blank).rejects.toMatchObject({ code: 'llm_response_invalid' });
    expect(await silent.sessions.get(session)).toBeNull();
    await silent.close();
  });

  it('says llm_not_configured without a model and validates the request first', async () => {
    const engram = await engramWith();
    await expect(engram.chat({ session, message: 'Hi' })).rejects.toMatchObject({
      code: 'llm_not_configured',
    });
    await expect(engram.chat({ session, message: '  ' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(engram.chat({ session: { sessionId: '' }, message: 'Hi' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect((await engram.traces.list(session)).total).toBe(0);
    await engram.close();
  });

  it('close() aborts turns in flight (storing nothing) and refuses new ones', async () => {
    const { gate, step } = stepper();
    const engram = await engramWith(fakeModel(['slow ', 'answer'], { gate }).provider);
    const starting = engram.chat({ session, message: 'Hi' });
    await step();
    const turn = await starting;
    const closed = engram.close();
    await step();
    await expect(turn.result).rejects.toMatchObject({ code: 'shutting_down' });
    await closed;
    await expect(engram.chat({ session, message: 'again' })).rejects.toBeInstanceOf(EngramError);
  });
});

describe('toChatMessages', () => {
  it('writes tool calls and tool results out as text', () => {
    expect(
      toChatMessages([
        { role: 'system', content: 'S' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }],
        },
        { role: 'tool', content: '42', tool_call_id: 'c1' },
        { role: 'user', content: 'And?', name: 'ada' },
      ]),
    ).toEqual([
      { role: 'system', content: 'S' },
      { role: 'assistant', content: '[called tool lookup({"q":1}), call c1]' },
      { role: 'user', content: '[result of tool call c1]\n42' },
      { role: 'user', content: 'And?' },
    ]);
  });
});
