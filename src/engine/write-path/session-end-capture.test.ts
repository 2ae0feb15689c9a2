import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ContextMessage } from '../../core/assembly/context-message.js';
import { StoreError } from '../../core/errors.js';
import { createEngram, type Engram } from '../../engram.js';
import type { LlmProvider } from '../../providers/llm/llm-provider.js';
import type { DocumentStore } from '../../stores/document-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createJobRunner, type JobRunner } from '../jobs/job-runner.js';
import { ProcedureLimitError } from '../long-term/procedure-library.js';
import { toSessionKey } from '../sessions/session-ref.js';
import { extractiveEpisode } from './llm/write-episode.js';
import { enqueueSessionEnd, registerSessionEndHandlers, type SessionEndDependencies } from './session-end.js';
import { SESSION_ENDS_COLLECTION } from './session-end-marks.js';
import type { EpisodeWriter, ProcedureCapturer } from './session-end-writers.js';

const tenantId = 'acme';
const ref = { tenantId, sessionId: 'support-1', userId: 'dana' };
const agent = { id: 'support-bot', systemPrompt: 'You help with orders.' };
/** The episode without the model (the stub below would fail it). */
const extractive: EpisodeWriter = async (_llm, input) => extractiveEpisode(input);
/** Never called: the capture and episode writers are test doubles; only its presence matters. */
const llm: LlmProvider = {
  model: 'test:none',
  complete: () => Promise.reject(new Error('not called')),
  stream: () => {
    throw new Error('not called');
  },
};
const refundProcedure: ProcedureCapturer = async () => ({
  name: 'Refund request',
  triggers: ['refund'],
  steps: ['Ask for the order number', 'Check the 30-day return window', 'Issue the refund'],
});

let now = Date.parse('2026-03-01T09:00:00.000Z');
const clock = () => new Date(now);
let engram: Engram;
let runner: JobRunner;

/**
 * An engram whose own runner sleeps (an hour between polls), and a second runner in the test's
 * hands whose end-session handler has a procedure capture, run one job at a time.
 */
async function setUp(overrides: Partial<SessionEndDependencies> = {}) {
  engram = await createEngram({
    store: createMemoryStore({ clock }),
    clock,
    llm,
    sweepIntervalMs: 0,
    jobs: { minPollMs: 3_600_000, maxPollMs: 3_600_000 },
  });
  runner = createJobRunner({ store: engram.store.jobs, clock, retry: { baseDelayMs: 60_000 } });
  registerSessionEndHandlers(runner, {
    store: engram.store,
    episodes: engram.episodes,
    procedures: engram.procedures,
    memories: engram.memories,
    traces: engram.traces,
    llm,
    captureProcedure: refundProcedure,
    writeEpisode: extractive,
    clock,
    log: () => {},
    ...overrides,
  });
  await engram.sessions.append(ref, [
    { role: 'user', content: 'I want a refund for order 1234, the shoes do not fit.' },
    { role: 'assistant', content: 'Sure. The order is within the 30-day window, so I issued the refund.' },
  ]);
}

async function endNow() {
  const session = await engram.store.getSession(toSessionKey(ref));
  if (!session) throw new Error('no session');
  const job = await enqueueSessionEnd(runner, toSessionKey(ref), session, null);
  await runner.runOnce();
  return (await runner.get(tenantId, job.id)) ?? job;
}

const text = (context: ContextMessage[]) => context.map((message) => message.content).join('\n');

beforeEach(() => {
  now = Date.parse('2026-03-01T09:00:00.000Z');
});
afterEach(async () => {
  await runner.close();
  await engram.close();
});

describe('procedure capture at session end', () => {
  it('stores the capture as pending: not in any context until approved', async () => {
    await setUp();
    // The agent comes from the session's latest assembled context.
    await engram.assemble({ agent, session: ref, message: 'hello' });
    const job = await endNow();
    expect(job.status).toBe('succeeded');
    const [procedure] = await engram.procedures.list(tenantId, 'support-bot');
    expect(procedure).toMatchObject({ name: 'Refund request', status: 'pending', agentId: 'support-bot' });
    expect(job.result).toMatchObject({ procedureId: procedure?.id });

    const before = await engram.assemble({ agent, session: ref, message: 'Can I get a refund?' });
    expect(text(before.context)).not.toContain('Ask for the order number');
    await engram.procedures.approve(tenantId, procedure?.id ?? '');
    const after = await engram.assemble({ agent, session: ref, message: 'Can I get a refund?' });
    expect(text(after.context)).toContain('Ask for the order number');
  });

  it('skips capture, with the reason in the result, when no agent is known', async () => {
    await setUp();
    const job = await endNow();
    expect(job.result).toMatchObject({
      procedureId: null,
      procedureSkipped: 'no agent is known for the session',
    });
    expect(job.result?.episodeId).toEqual(expect.any(String));
  });

  it('skips capture, keeping the episode, when the agent has the most procedures allowed', async () => {
    await setUp();
    const full = {
      ...engram.procedures,
      create: () => Promise.reject(new ProcedureLimitError('support-bot', 1_000)),
    };
    await runner.close();
    runner = createJobRunner({ store: engram.store.jobs, clock, retry: { baseDelayMs: 60_000 } });
    registerSessionEndHandlers(runner, {
      store: engram.store,
      episodes: engram.episodes,
      procedures: full,
      memories: engram.memories,
      traces: engram.traces,
      llm,
      captureProcedure: refundProcedure,
      writeEpisode: extractive,
      clock,
      log: () => {},
    });
    await engram.assemble({ agent, session: ref, message: 'hello' });
    const job = await endNow();
    expect(job.status).toBe('succeeded');
    expect(job.result).toMatchObject({ procedureId: null, episodeId: expect.any(String) });
    expect(job.result?.procedureSkipped).toMatch(/already has 1000 procedures/);
  });
});

describe('a failed session end', () => {
  it('leaves nothing half-written when a write fails, and a retry writes everything once', async () => {
    let failing = true;
    await setUp();
    const procedures = {
      ...engram.procedures,
      create: (...args: Parameters<typeof engram.procedures.create>) =>
        failing ? Promise.reject(new StoreError('disk full')) : engram.procedures.create(...args),
    };
    await runner.close();
    runner = createJobRunner({ store: engram.store.jobs, clock, retry: { baseDelayMs: 60_000 } });
    registerSessionEndHandlers(runner, {
      store: engram.store,
      episodes: engram.episodes,
      procedures,
      memories: engram.memories,
      traces: engram.traces,
      llm,
      captureProcedure: refundProcedure,
      writeEpisode: extractive,
      clock,
      log: () => {},
    });
    await engram.assemble({ agent, session: ref, message: 'hello' });

    const failed = await endNow();
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, error: { message: 'disk full' } });
    expect(await engram.episodes.search(tenantId, { userId: 'dana', query: 'refund order shoes' })).toEqual(
      [],
    );
    expect(await engram.procedures.list(tenantId, 'support-bot')).toEqual([]);
    // No end mark: only the staged answer, which the retry writes again.
    const [staged] = (
      await engram.store.documents.listDocuments(tenantId, SESSION_ENDS_COLLECTION, { limit: 5, offset: 0 })
    ).documents;
    expect(staged?.value).not.toHaveProperty('throughSeq');
    expect(staged?.value.staged).toMatchObject({ throughSeq: 2 });

    failing = false;
    now += 3_600_000;
    expect(await runner.runOnce()).toBe(true);
    expect(await runner.get(tenantId, failed.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(
      await engram.episodes.search(tenantId, { userId: 'dana', query: 'refund order shoes' }),
    ).toHaveLength(1);
    expect(await engram.procedures.list(tenantId, 'support-bot')).toHaveLength(1);
  });

  it('writes one episode when the worker dies between the episode and the end mark', async () => {
    // The model words the episode differently each time it is asked.
    const wordings = [
      'Dana asked for a refund of order 1234.',
      'Dana wanted her shoes (order 1234) refunded.',
    ];
    const writeEpisode: EpisodeWriter = async () => ({ summary: wordings.shift() ?? 'again', keyFacts: [] });
    await setUp({ writeEpisode });
    // A first worker freezes for good (kill -9) right before writing the end mark: no cleanup runs.
    let reachedMark: () => void = () => {};
    const atMark = new Promise<void>((resolve) => {
      reachedMark = resolve;
    });
    const documents: DocumentStore = {
      ...engram.store.documents,
      putDocument: (...args) => {
        const [, collection, , value] = args;
        if (collection !== SESSION_ENDS_COLLECTION || 'staged' in value) {
          return engram.store.documents.putDocument(...args);
        }
        reachedMark();
        return new Promise(() => {});
      },
    };
    const dying = createJobRunner({ store: engram.store.jobs, clock });
    registerSessionEndHandlers(dying, {
      store: { ...engram.store, documents },
      episodes: engram.episodes,
      procedures: engram.procedures,
      memories: engram.memories,
      traces: engram.traces,
      llm,
      writeEpisode,
      clock,
      log: () => {},
    });
    const session = await engram.store.getSession(toSessionKey(ref));
    if (!session) throw new Error('no session');
    const job = await enqueueSessionEnd(runner, toSessionKey(ref), session, null);
    void dying.runOnce();
    await atMark;

    // Its lease expires and the live worker retries the job.
    now += 3_600_000;
    expect(await runner.runOnce()).toBe(true);
    const done = await runner.get(tenantId, job.id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2 });
    const { memories } = await engram.memories.list(tenantId);
    const episodes = memories.filter((memory) => memory.memoryType === 'episodic');
    expect(episodes.map((memory) => memory.text)).toEqual(['Dana asked for a refund of order 1234.']);
    expect(done?.result).toMatchObject({ episodeId: episodes[0]?.id, throughSeq: 2 });
    const mark = await engram.store.documents.getDocument(
      tenantId,
      SESSION_ENDS_COLLECTION,
      JSON.stringify([null, 'dana', 'support-1']),
    );
    expect(mark?.value).not.toHaveProperty('staged');
  });

  it('writes nothing when the episode writer (the model) fails', async () => {
    const writeEpisode = vi.fn().mockRejectedValue(new Error('model unavailable'));
    await setUp({ writeEpisode });
    const failed = await endNow();
    expect(failed).toMatchObject({ status: 'pending', error: { message: 'model unavailable' } });
    expect(writeEpisode).toHaveBeenCalledOnce();
    expect(await engram.episodes.search(tenantId, { userId: 'dana', query: 'refund order' })).toEqual([]);
    expect(await engram.procedures.list(tenantId, 'support-bot')).toEqual([]);
  });
});
