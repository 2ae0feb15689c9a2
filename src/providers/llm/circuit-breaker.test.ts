import { describe, expect, it } from 'vitest';
import { useScriptedLlm } from '../../../test/support/scripted-llm.js';
import { withCircuitBreaker } from './circuit-breaker.js';
import { LlmError } from './llm-error.js';

const setup = useScriptedLlm();
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
const down = { status: 503, body: { error: { message: 'down' } } };

describe('LLM circuit breaker', () => {
  it('opens after the threshold of provider failures: calls then fail at once, without a request', async () => {
    const { server, llm } = await setup();
    let now = 0;
    const guarded = withCircuitBreaker(llm, {
      failureThreshold: 3,
      cooldownMs: 10_000,
      clock: () => new Date(now),
    });
    server.script(down, down, down);
    for (let n = 0; n < 3; n++) await expect(guarded.complete(ask)).rejects.toBeInstanceOf(LlmError);
    expect(guarded.breaker.state()).toBe('open');
    expect(guarded.breaker.allows()).toBe(false);
    const fast = await guarded.complete(ask).catch((error: LlmError) => error);
    expect(fast).toMatchObject({ code: 'llm_unavailable', retryable: true, retryAfterMs: 10_000 });
    expect(server.requests).toHaveLength(3);
    now += 9_999;
    await expect(guarded.complete(ask)).rejects.toThrow(/circuit open/);
    expect(server.requests).toHaveLength(3);
  });

  it('half-open: one probe goes out; a failed probe reopens for twice as long, a good one closes', async () => {
    const { server, llm } = await setup();
    let now = 0;
    const guarded = withCircuitBreaker(llm, {
      failureThreshold: 2,
      cooldownMs: 1_000,
      clock: () => new Date(now),
    });
    server.script(down, down, down, { content: 'back' }, down);
    await guarded.complete(ask).catch(() => {});
    await guarded.complete(ask).catch(() => {});
    now += 1_000;
    expect(guarded.breaker.state()).toBe('half-open');
    expect(guarded.breaker.allows()).toBe(true);
    await expect(guarded.complete(ask)).rejects.toThrow(/503|down/);
    expect(guarded.breaker.retryInMs()).toBe(2_000);
    now += 2_000;
    expect((await guarded.complete(ask)).content).toBe('back');
    expect(guarded.breaker.state()).toBe('closed');
    // Closed again: the count starts over, one failure does not open it.
    await guarded.complete(ask).catch(() => {});
    expect(guarded.breaker.state()).toBe('closed');
    expect(server.requests).toHaveLength(5);
  });

  it('request errors (a rejected request) do not count; a success resets the count', async () => {
    const { server, llm } = await setup();
    const guarded = withCircuitBreaker(llm, { failureThreshold: 2 });
    server.script(
      { status: 400, body: { error: { message: 'too long' } } },
      { status: 400 },
      down,
      { content: 'ok' },
      down,
    );
    for (let n = 0; n < 3; n++) await guarded.complete(ask).catch(() => {});
    expect(guarded.breaker.state()).toBe('closed');
    await guarded.complete(ask);
    await guarded.complete(ask).catch(() => {});
    expect(guarded.breaker.state()).toBe('closed');
  });

  it('turns what a custom provider throws into an LlmError, keeping a caller’s abort', async () => {
    const custom = withCircuitBreaker({
      model: 'custom',
      complete: () => {
        throw new TypeError("Cannot read properties of undefined (reading 'trim')");
      },
      // biome-ignore lint/correctness/useYield: a stream that fails before its first chunk
      async *stream() {
        throw 'not even an Error';
      },
    });
    await expect(custom.complete(ask)).rejects.toMatchObject({
      code: 'llm_unavailable',
      cause: expect.any(TypeError),
    });
    const streamed = (async () => {
      for await (const _chunk of custom.stream(ask));
    })();
    await expect(streamed).rejects.toBeInstanceOf(LlmError);
    const aborting = withCircuitBreaker({
      model: 'custom',
      complete: async () => {
        throw new DOMException('stopped', 'AbortError');
      },
      async *stream() {},
    });
    await expect(aborting.complete(ask)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
