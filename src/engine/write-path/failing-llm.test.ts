import { afterEach, describe, expect, it } from 'vitest';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../../test/support/scripted-openai-server.js';
import { createEngram, type Engram } from '../../engram.js';
import { createOpenAIChatProvider } from '../../providers/llm/openai-chat-provider.js';
import type { Job } from '../../stores/job-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createSqliteStore } from '../../stores/sqlite/sqlite-store.js';
import { WRITE_PATH_JOBS } from './create-write-path.js';

const opened: { engram: Engram; server: ScriptedOpenAIServer }[] = [];
afterEach(async () => {
  for (const { engram, server } of opened.splice(0)) {
    await engram.close();
    await server.close();
  }
});

const FAILURE_THRESHOLD = 5;
const sessions = ['trip', 'budget', 'garden'];
const words = (n: number) => Array.from({ length: 40 }, (_, index) => `word${n}x${index}`).join(' ');

/** Every job of `type` in the tenant, by status. */
async function jobsOf(engram: Engram, type: string, status: Job['status']): Promise<Job[]> {
  return (await engram.jobs.list('default', { type, status, limit: 10_000, offset: 0 })).jobs;
}

/** Waits until the runner has nothing it may claim (every due job ran or waits behind the breaker). */
async function settle(engram: Engram, server: ScriptedOpenAIServer): Promise<void> {
  let calls = -1;
  for (let round = 0; round < 200; round++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const running = await engram.jobs.list('default', { status: 'running', limit: 1, offset: 0 });
    if (running.total === 0 && server.requests.length === calls) return;
    calls = server.requests.length;
  }
}

describe.each([
  ['memory', async () => createMemoryStore()],
  ['sqlite', async () => createSqliteStore({ path: ':memory:' })],
] as const)('background jobs under a failing LLM (%s store)', (_name, makeStore) => {
  it('150 appends to 3 sessions: one pending summary and extraction per session, LLM calls bounded', async () => {
    // Every request answers 500: the scripted server has no answer left.
    const server = await startScriptedOpenAIServer();
    const engram = await createEngram({
      store: await makeStore(),
      llm: createOpenAIChatProvider({ baseUrl: server.baseUrl, model: 'scripted', timeoutMs: 2_000 }),
      llmCircuit: { failureThreshold: FAILURE_THRESHOLD, cooldownMs: 600_000 },
      sweepIntervalMs: 0,
      defaultSources: false,
      jobs: { minPollMs: 1, maxPollMs: 5, retry: { baseDelayMs: 1, maxDelayMs: 2 }, defaultMaxAttempts: 3 },
      // A small window, so that the sessions pass the summary threshold after a few appends.
      writePath: { contextWindow: 512, extractionDebounceMs: 0, catchUpIntervalMs: 0 },
    });
    opened.push({ engram, server });
    for (let n = 0; n < 150; n++) {
      const sessionId = sessions[n % sessions.length] as string;
      await engram.sessions.append({ sessionId }, [{ role: 'user', content: words(n) }]);
      // Let the runner work between writes, as a live server's would.
      if (n % 10 === 9) await settle(engram, server);
    }
    await settle(engram, server);

    for (const type of [WRITE_PATH_JOBS.summarize, WRITE_PATH_JOBS.extract]) {
      const pending = await jobsOf(engram, type, 'pending');
      const perSession = new Map<string, number>();
      for (const job of pending) {
        const sessionId = String(job.payload.sessionId);
        perSession.set(sessionId, (perSession.get(sessionId) ?? 0) + 1);
      }
      expect(
        [...perSession.values()].every((count) => count <= 1),
        `${type}: ${[...perSession]}`,
      ).toBe(true);
      expect(perSession.size, type).toBe(sessions.length);
      // Deferred, not burned: the waiting jobs still have attempts left.
      for (const job of pending) expect(job.attempts).toBeLessThan(job.maxAttempts);
    }
    // The breaker opened after FAILURE_THRESHOLD provider failures; nothing reached the model since.
    expect(engram.llm && 'breaker' in engram.llm).toBe(true);
    expect(server.requests.length).toBeLessThanOrEqual(FAILURE_THRESHOLD);
    const failed = [
      ...(await jobsOf(engram, WRITE_PATH_JOBS.summarize, 'failed')),
      ...(await jobsOf(engram, WRITE_PATH_JOBS.extract, 'failed')),
    ];
    expect(failed.length).toBeLessThanOrEqual(FAILURE_THRESHOLD);
  });
});
