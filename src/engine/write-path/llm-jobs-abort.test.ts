import { afterEach, describe, expect, it } from 'vitest';
import { createEngram, type Engram } from '../../engram.js';
import type { ChatCompletion, ChatRequest, LlmProvider } from '../../providers/llm/llm-provider.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';

/** A model that never answers: each call waits until its signal aborts (or the test releases it). */
function hangingLlm() {
  const calls: ChatRequest[] = [];
  const releases: (() => void)[] = [];
  const llm: LlmProvider = {
    model: 'hanging',
    complete(request) {
      calls.push(request);
      return new Promise<ChatCompletion>((_resolve, reject) => {
        const stop = () => reject(request.signal?.reason ?? new Error('released by the test'));
        releases.push(stop);
        request.signal?.addEventListener('abort', stop, { once: true });
      });
    },
    // biome-ignore lint/correctness/useYield: never streams in these tests
    async *stream() {
      throw new Error('not used');
    },
  };
  const release = () => {
    for (const stop of releases) stop();
  };
  return { llm, calls, release };
}

const opened: Engram[] = [];
afterEach(async () => {
  for (const engram of opened.splice(0)) await engram.close();
});

async function untilCalled(calls: ChatRequest[]): Promise<ChatRequest> {
  for (let round = 0; round < 400 && calls.length === 0; round++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const [call] = calls;
  if (!call) throw new Error('The model was never called');
  return call;
}

const words = (n: number) => Array.from({ length: 60 }, (_, index) => `word${n}x${index}`).join(' ');

describe('LLM jobs stop when the runner closes (their model call gets the job signal)', () => {
  it.each([
    ['extract-memories', { contextWindow: 128_000 }, false],
    ['summarize-session', { contextWindow: 256 }, false],
    ['end-session', { contextWindow: 128_000 }, true],
  ] as const)('%s', async (_type, sizes, end) => {
    const { llm, calls, release } = hangingLlm();
    const hanging = await createEngram({
      store: createMemoryStore(),
      llm,
      sweepIntervalMs: 0,
      defaultSources: false,
      jobs: { minPollMs: 1, maxPollMs: 5 },
      // The extraction job is due long after the test; summaries and ends run at once.
      writePath: { ...sizes, extractionDebounceMs: end ? 3_600_000 : 0, catchUpIntervalMs: 0 },
    });
    opened.push(hanging);
    const ref = { tenantId: 'default', sessionId: 's', userId: 'u' };
    for (let n = 0; n < 6; n++) await hanging.sessions.append(ref, [{ role: 'user', content: words(n) }]);
    if (end) await hanging.sessions.end(ref);
    const call = await untilCalled(calls);
    const closing = hanging.close();
    opened.splice(0);
    // close() stops other parts first; give it a while to reach the runner.
    for (let round = 0; round < 200 && !call.signal?.aborted; round++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const aborted = call.signal?.aborted === true;
    release();
    await closing;
    expect(aborted).toBe(true);
  });
});
