import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFakeClock } from '../../../test/conformance/fixtures.js';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../../test/support/scripted-openai-server.js';
import { useTemporaryDirectories } from '../../../test/support/temporary-directories.js';
import { ValidationError } from '../../core/errors.js';
import { completeJson } from '../../providers/llm/complete-json.js';
import { createOpenAIChatProvider } from '../../providers/llm/openai-chat-provider.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createSqliteStore } from '../../stores/sqlite/sqlite-store.js';
import { createJobRunner, type JobRunnerOptions } from './job-runner.js';

const temporaryDirectory = useTemporaryDirectories('engram-jobs-');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A memory store on a fake clock and a runner over it with deterministic jitter (always the maximum). */
function setup(options: Partial<JobRunnerOptions> = {}) {
  const clock = createFakeClock();
  const store = createMemoryStore({ clock: clock.now });
  const runner = createJobRunner({
    store: store.jobs,
    clock: clock.now,
    random: () => 1,
    workerId: 'w1',
    ...options,
  });
  cleanups.push(async () => {
    await runner.close();
    await store.close();
  });
  return { clock, store, runner };
}

async function scriptedServer(): Promise<ScriptedOpenAIServer> {
  const server = await startScriptedOpenAIServer();
  cleanups.push(() => server.close());
  return server;
}

describe('job runner', () => {
  it('does not claim jobs of a type that is not ready: they wait with their attempts intact', async () => {
    const { runner } = setup();
    let ready = false;
    const ran: string[] = [];
    runner.register(
      'needs-llm',
      async (payload) => {
        ran.push(String(payload.n));
        return null;
      },
      { isReady: () => ready },
    );
    runner.register('plain', async () => null);
    const waiting = await runner.enqueue('t', 'needs-llm', { n: 1 });
    await runner.enqueue('t', 'plain', {});
    expect(await runner.runOnce()).toBe(true);
    expect(await runner.runOnce()).toBe(false);
    expect(await runner.get('t', waiting.id)).toMatchObject({ status: 'pending', attempts: 0 });
    ready = true;
    expect(await runner.runOnce()).toBe(true);
    expect(ran).toEqual(['1']);
  });

  it('runs a job with its handler and keeps the result; other types stay queued', async () => {
    const { runner } = setup();
    const seen: unknown[] = [];
    runner.register('echo', async (payload, { job }) => {
      seen.push({ payload, attempt: job.attempts, tenant: job.tenantId });
      return { echoed: payload.text ?? null };
    });
    const queued = await runner.enqueue('t', 'echo', { text: 'hi' });
    const other = await runner.enqueue('t', 'unhandled', {});
    expect(await runner.runOnce()).toBe(true);
    expect(await runner.runOnce()).toBe(false);
    expect(seen).toEqual([{ payload: { text: 'hi' }, attempt: 1, tenant: 't' }]);
    expect(await runner.get('t', queued.id)).toMatchObject({ status: 'succeeded', result: { echoed: 'hi' } });
    expect((await runner.get('t', other.id))?.status).toBe('pending');
  });

  it('returns the same job for the same idempotency key and validates what it queues', async () => {
    const { runner } = setup();
    const first = await runner.enqueue('t', 'echo', { n: 1 }, { idempotencyKey: 'turn-7' });
    const again = await runner.enqueue('t', 'echo', { n: 2 }, { idempotencyKey: 'turn-7' });
    expect(again.id).toBe(first.id);
    expect(again.payload).toEqual({ n: 1 });
    await expect(runner.enqueue('t', '', {})).rejects.toBeInstanceOf(ValidationError);
    await expect(runner.enqueue('t', 'echo', { n: 1 }, { maxAttempts: 0 })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('retries LLM failures with backoff honouring Retry-After, then succeeds', async () => {
    const { clock, runner } = setup({ retry: { baseDelayMs: 1_000, maxDelayMs: 60_000 } });
    const server = await scriptedServer();
    const llm = createOpenAIChatProvider({ baseUrl: server.baseUrl, model: 'scripted' });
    runner.register('extract', async (payload, { signal }) => {
      const { value } = await completeJson(
        llm,
        { messages: [{ role: 'user', content: String(payload.text) }], signal },
        z.object({ facts: z.array(z.string()) }),
      );
      return value;
    });
    server.script(
      { status: 429, headers: { 'retry-after': '30' } },
      { content: '{"facts": ["Ada likes' },
      { content: '{"facts": ["Ada likes tea"]}' },
    );
    const job = await runner.enqueue('t', 'extract', { text: 'Ada likes tea' });
    await runner.runOnce();
    expect(await runner.get('t', job.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      availableAt: clock.iso(30_000),
      error: { code: 'llm_rate_limited' },
    });
    expect(await runner.runOnce()).toBe(false);
    clock.advance(30_000);
    await runner.runOnce();
    // Second failure: malformed JSON, exponential backoff 2 s (jitter fixed at its maximum).
    expect(await runner.get('t', job.id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      availableAt: clock.iso(2_000),
      error: { code: 'llm_output_invalid' },
    });
    clock.advance(2_000);
    await runner.runOnce();
    expect(await runner.get('t', job.id)).toMatchObject({
      status: 'succeeded',
      attempts: 3,
      result: { facts: ['Ada likes tea'] },
    });
    expect(server.requests).toHaveLength(3);
  });

  it('fails the job visibly with its last error once the attempts are used up', async () => {
    const willRetry: boolean[] = [];
    const { clock, runner } = setup({ onJobError: (_error, _job, retry) => willRetry.push(retry) });
    const server = await scriptedServer();
    const llm = createOpenAIChatProvider({ baseUrl: server.baseUrl, model: 'scripted' });
    runner.register(
      'summarize',
      async (_payload, { signal }) => {
        await llm.complete({ messages: [{ role: 'user', content: 'x' }], signal });
        return null;
      },
      { maxAttempts: 2 },
    );
    server.script({ status: 503 }, { status: 500, body: { error: { message: 'still down' } } });
    const job = await runner.enqueue('t', 'summarize', {});
    await runner.runOnce();
    clock.advance(60_000);
    await runner.runOnce();
    expect(await runner.get('t', job.id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      completedAt: clock.iso(),
      error: { code: 'llm_unavailable', message: expect.stringContaining('HTTP 500') },
    });
    expect(willRetry).toEqual([true, false]);
  });

  it('fails at once on an error that retrying cannot fix', async () => {
    const { runner } = setup();
    const server = await scriptedServer();
    const llm = createOpenAIChatProvider({ baseUrl: server.baseUrl, model: 'scripted', apiKey: 'wrong' });
    runner.register('summarize', async () => {
      await llm.complete({ messages: [{ role: 'user', content: 'x' }] });
      return null;
    });
    server.script({ status: 401, body: { error: { message: 'Incorrect API key' } } });
    const job = await runner.enqueue('t', 'summarize', {});
    await runner.runOnce();
    expect(await runner.get('t', job.id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'llm_request_rejected' },
    });
  });

  it('runs again a job whose worker died, once its lease has expired', async () => {
    const { clock, store, runner } = setup({ leaseMs: 5_000 });
    const attempts: number[] = [];
    runner.register('echo', async (_payload, { job }) => {
      attempts.push(job.attempts);
      return { ok: true };
    });
    const job = await runner.enqueue('t', 'echo', {});
    // Another process claimed it and died without finishing.
    const dead = await store.jobs.claim('dead-worker', 5_000);
    expect(dead?.id).toBe(job.id);
    expect(await runner.runOnce()).toBe(false);
    clock.advance(5_000);
    expect(await runner.runOnce()).toBe(true);
    expect(attempts).toEqual([2]);
    expect(await runner.get('t', job.id)).toMatchObject({ status: 'succeeded', workerId: null, attempts: 2 });
  });

  it('recovers after a restart: a job running when the process stopped runs again on the same file', async () => {
    const path = join(temporaryDirectory(), 'engram.db');
    const clock = createFakeClock();
    const before = await createSqliteStore({ path, clock: clock.now });
    const { job } = await before.jobs.enqueue('t', {
      id: 'job-1',
      type: 'echo',
      payload: {},
      maxAttempts: 3,
    });
    await before.jobs.claim('crashed-process', 30_000);
    await before.close();

    const after = await createSqliteStore({ path, clock: clock.now });
    const runner = createJobRunner({ store: after.jobs, clock: clock.now, leaseMs: 30_000 });
    cleanups.push(async () => {
      await runner.close();
      await after.close();
    });
    runner.register('echo', async () => ({ recovered: true }));
    expect(await runner.runOnce()).toBe(false);
    clock.advance(30_000);
    expect(await runner.runOnce()).toBe(true);
    expect(await after.jobs.getJob('t', job.id)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      result: { recovered: true },
    });
  });

  it('does not record the outcome of an attempt whose lease was lost', async () => {
    const { clock, store, runner } = setup({ leaseMs: 30 });
    let aborted: unknown;
    runner.register('slow', async (_payload, { signal }) => {
      // Meanwhile the lease expires (fake clock) and another worker takes the job over.
      clock.advance(30);
      await store.jobs.claim('other-worker', 60_000);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      aborted = signal.reason;
      throw new Error('stopped');
    });
    const job = await runner.enqueue('t', 'slow', {});
    await runner.runOnce();
    expect(aborted).toMatchObject({ code: 'job_lease_lost' });
    expect(await runner.get('t', job.id)).toMatchObject({
      status: 'running',
      workerId: 'other-worker',
      attempts: 2,
      error: null,
    });
  });

  it('confirmLease: a worker that stalled past its lease learns at once that the job is another’s', async () => {
    // A long lease: no heartbeat beats during the test, as none does in a stopped process.
    const { clock, store, runner } = setup({ leaseMs: 60_000 });
    const writes: string[] = [];
    let refused: unknown;
    runner.register('extract', async (_payload, { confirmLease }) => {
      await confirmLease(); // still ours
      clock.advance(60_001); // stalled past the lease; another worker claims the job meanwhile
      await store.jobs.claim('other-worker', 60_000);
      try {
        await confirmLease();
        writes.push('written by a worker that lost the job');
      } catch (error) {
        refused = error;
        throw error;
      }
      return null;
    });
    const job = await runner.enqueue('t', 'extract', {});
    await runner.runOnce();
    expect(writes).toEqual([]);
    expect(refused).toMatchObject({ code: 'job_lease_lost' });
    expect(await runner.get('t', job.id)).toMatchObject({ status: 'running', workerId: 'other-worker' });
  });

  it('runs queued jobs in the background and stops cleanly, putting an interrupted job back', async () => {
    const { store, runner } = setup({ minPollMs: 5, maxPollMs: 20 });
    const started: string[] = [];
    let release: () => void = () => undefined;
    const firstDone = new Promise<void>((resolve) => {
      release = resolve;
    });
    runner.register('work', async (payload, { signal }) => {
      started.push(String(payload.name));
      if (payload.name === 'quick') {
        release();
        return { done: true };
      }
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      throw signal.reason;
    });
    runner.start();
    runner.start();
    const quick = await runner.enqueue('t', 'work', { name: 'quick' });
    await firstDone;
    const slow = await runner.enqueue('t', 'work', { name: 'slow' });
    while (started.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await runner.close();
    expect((await runner.get('t', quick.id))?.status).toBe('succeeded');
    expect(await runner.get('t', slow.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      // Stopped, not failed: the task shows no error.
      error: null,
    });
    expect(await runner.runOnce()).toBe(false);
    expect((await store.jobs.claim('next-start', 1_000))?.id).toBe(slow.id);
  });
});
