import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../../test/support/scripted-openai-server.js';
import { createEngram, type Engram, type EngramOptions } from '../../engram.js';
import { completeJson } from '../../providers/llm/complete-json.js';
import { createOpenAIChatProvider } from '../../providers/llm/openai-chat-provider.js';
import type { Job } from '../../stores/job-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { LLM_OFF_NOTICE, WRITE_PATH_JOBS } from './create-write-path.js';
import { EXTRACTION_CURSORS } from './session-cursors.js';
import type { MemoryExtractor } from './session-memory-extraction.js';

const ref = { sessionId: 'trip', userId: 'ana' };
let now = Date.parse('2026-03-01T10:00:00.000Z');
const clock = () => new Date(now);
const opened: { engram: Engram; llm?: ScriptedOpenAIServer }[] = [];

afterEach(async () => {
  for (const { engram, llm } of opened.splice(0)) {
    await engram.close();
    await llm?.close();
  }
});

/** A test extractor over the scripted model: `{"memories": ["fact", …]}`. */
const scriptedExtractor =
  (server: ScriptedOpenAIServer): MemoryExtractor =>
  async ({ messages, signal }) => {
    const llm = createOpenAIChatProvider({ baseUrl: server.baseUrl, model: 'scripted', timeoutMs: 2_000 });
    const transcript = messages.map((message) => `${message.role}: ${message.content}`).join('\n');
    const { value } = await completeJson(
      llm,
      { messages: [{ role: 'user', content: transcript }], ...(signal ? { signal } : {}) },
      z.object({ memories: z.array(z.string()) }),
    );
    return value.memories.map((text) => ({ text }));
  };

async function open(options: { llm?: boolean; writePath?: EngramOptions['writePath'] } = {}) {
  now = Date.parse('2026-03-01T10:00:00.000Z');
  const llm = options.llm ? await startScriptedOpenAIServer() : undefined;
  const engram = await createEngram({
    store: createMemoryStore({ clock }),
    clock,
    sweepIntervalMs: 0,
    defaultSources: false,
    jobs: { minPollMs: 2, maxPollMs: 10, retry: { baseDelayMs: 1, maxDelayMs: 2 }, defaultMaxAttempts: 3 },
    writePath: {
      extractionDebounceMs: 30_000,
      catchUpIntervalMs: 0,
      ...(llm ? { extractor: scriptedExtractor(llm) } : {}),
      ...options.writePath,
    },
  });
  opened.push({ engram, ...(llm ? { llm } : {}) });
  return { engram, llm };
}

const jobsOf = async (engram: Engram, type: string) =>
  (await engram.jobs.list('default', { type, limit: 100, offset: 0 })).jobs;

/** Waits until the runner has finished `job` (it works in the background). */
async function settled(engram: Engram, job: Job): Promise<Job> {
  for (let tries = 0; tries < 500; tries++) {
    const current = await engram.jobs.get(job.tenantId, job.id);
    if (current?.status === 'succeeded' || current?.status === 'failed') return current;
    now += 5; // retries are due by the fake clock
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`Job ${job.id} did not finish`);
}

describe('write path triggers', () => {
  it('promotes pending session memories once, in the background', async () => {
    const { engram } = await open();
    await engram.sessions.put(ref, {
      memories: [{ id: 'm1', text: 'Ana is vegetarian', memoryType: 'semantic' }],
    });
    await engram.sessions.patch(ref, { data: { step: 2 } });
    const [job, ...others] = await jobsOf(engram, WRITE_PATH_JOBS.promote);
    expect(others).toEqual([]);
    if (!job) throw new Error('no promotion job');
    expect((await settled(engram, job)).result).toMatchObject({ created: ['m1'] });
    expect((await engram.memories.get('default', 'm1')).text).toBe('Ana is vegetarian');
    expect((await engram.sessions.get(ref))?.memories[0]?.persistedAt).not.toBeNull();
    // Nothing is pending any more: further writes enqueue no promotion.
    await engram.sessions.patch(ref, { data: { step: 3 } });
    expect(await jobsOf(engram, WRITE_PATH_JOBS.promote)).toHaveLength(1);
  });

  it('summarizes a session past the threshold once per summary mark (extractive without an LLM)', async () => {
    const notices: string[] = [];
    const { engram } = await open({
      writePath: {
        contextWindow: 400,
        summaryThreshold: 0.5,
        summaryKeepRecent: 0.25,
        onNotice: (m) => notices.push(m),
      },
    });
    expect(notices).toEqual([LLM_OFF_NOTICE]);
    for (let index = 0; index < 12; index++) {
      await engram.sessions.append(ref, [
        { role: 'user', content: `Question ${index}: what is there to see in city number ${index}?` },
        { role: 'assistant', content: `City ${index} has a castle, a river and famous pastries.` },
      ]);
    }
    const enqueued = await jobsOf(engram, WRITE_PATH_JOBS.summarize);
    expect(enqueued.length).toBeGreaterThan(0);
    // Read the results once every job has finished (a job may still be running when listed).
    const summaries = await Promise.all(enqueued.map((job) => settled(engram, job)));
    const session = await engram.sessions.get(ref);
    expect(session?.summarized.throughSeq).toBeGreaterThan(0);
    expect(session?.context).toContain('castle');
    expect(summaries.some((job) => job.result?.writer === 'extractive')).toBe(true);
    // Appends under one mark share one job: far fewer jobs than appends past the threshold.
    const keys = summaries.map((job) => job.idempotencyKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(await jobsOf(engram, WRITE_PATH_JOBS.extract)).toEqual([]);
  });

  it('summarizes against the window of the model a write names (AMS model_name), not only the default', async () => {
    const { engram } = await open({ writePath: { summaryThreshold: 0.5, summaryKeepRecent: 0.25 } });
    const messages = Array.from({ length: 12 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `Message ${index} about the castle, the river and the famous pastries of city ${index}.`,
    }));
    // Far under the default model's window (gpt-4o, 128,000 tokens): nothing to summarize.
    await engram.sessions.put(ref, { messages });
    expect(await jobsOf(engram, WRITE_PATH_JOBS.summarize)).toEqual([]);
    // The same session written for a 400-token model is past its threshold.
    await engram.sessions.put(ref, { messages }, { contextWindow: 400 });
    const [job, ...others] = await jobsOf(engram, WRITE_PATH_JOBS.summarize);
    expect(others).toEqual([]);
    if (!job) throw new Error('no summary job');
    expect(job.payload.contextWindow).toBe(400);
    expect((await settled(engram, job)).result).toMatchObject({ status: 'summarized' });
    expect((await engram.sessions.get(ref))?.summarized.throughSeq).toBeGreaterThan(12);
  });

  it('never calls the LLM on the write path; extraction runs debounced and moves a cursor', async () => {
    const { engram, llm } = await open({ llm: true });
    if (!llm) throw new Error('no scripted server');
    await engram.sessions.append(ref, [{ role: 'user', content: 'I moved to Lisbon last month.' }]);
    await engram.sessions.append(ref, [{ role: 'assistant', content: 'Welcome to Lisbon!' }]);
    expect(llm.requests).toHaveLength(0);
    const [job, ...others] = await jobsOf(engram, WRITE_PATH_JOBS.extract);
    expect(others).toEqual([]);
    expect(job?.status).toBe('pending');
    expect(job?.availableAt).toBe('2026-03-01T10:00:30.000Z');
    if (!job) throw new Error('no extraction job');

    llm.script({ content: '{"memories": ["Ana lives in Lisbon"]}' });
    now += 31_000;
    const done = await settled(engram, job);
    expect(done.result).toMatchObject({ status: 'extracted', messages: 2, cursor: 2 });
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]?.body.messages?.[0]?.content).toContain('Welcome to Lisbon');
    const { memories } = await engram.memories.list('default', { userId: { eq: 'ana' } });
    expect(memories.map((memory) => [memory.text, memory.sessionId])).toEqual([
      ['Ana lives in Lisbon', 'trip'],
    ]);

    // The next window's job reads only the messages after the cursor.
    await engram.sessions.append(ref, [{ role: 'user', content: 'My sister Rita lives in Porto.' }]);
    const next = (await jobsOf(engram, WRITE_PATH_JOBS.extract)).find((candidate) => candidate.id !== job.id);
    if (!next) throw new Error('no second extraction job');
    llm.script({ content: '{"memories": ["Ana has a sister, Rita, in Porto"]}' });
    now += 31_000;
    expect((await settled(engram, next)).result).toMatchObject({ messages: 1, cursor: 3 });
    expect(llm.requests[1]?.body.messages?.[0]?.content).not.toContain('Lisbon');
    const cursor = await engram.store.documents.listDocuments('default', EXTRACTION_CURSORS, {
      limit: 10,
      offset: 0,
    });
    expect(cursor.documents.map((document) => document.value.seq)).toEqual([3]);
  });

  it('an AMS client appending by GET then PUT of the whole list has each message extracted once', async () => {
    const seen: string[][] = [];
    const { engram } = await open({
      writePath: {
        extractionDebounceMs: 0,
        extractor: async ({ messages }) => {
          seen.push(messages.map((message) => message.content));
          return [];
        },
      },
    });
    for (let round = 1; round <= 3; round++) {
      const current = (await engram.sessions.get(ref))?.messages ?? [];
      // What the client read (times in whole seconds, as AMS answers them), then its new message.
      const messages = [
        ...current.map(({ id, role, content, createdAt }) => ({
          id,
          role,
          content,
          createdAt: `${createdAt.slice(0, 19)}Z`,
        })),
        { id: `m${round}`, role: 'user' as const, content: `Message ${round}` },
      ];
      await engram.sessions.put(ref, { messages });
      for (const job of await jobsOf(engram, WRITE_PATH_JOBS.extract)) await settled(engram, job);
      now += 1_234;
    }
    expect(seen).toEqual([['Message 1'], ['Message 2'], ['Message 3']]);
    expect((await engram.sessions.get(ref))?.messages.map((message) => message.seq)).toEqual([1, 2, 3]);
  });

  it('a job that runs out of attempts leaves long-term memory and the cursor unchanged', async () => {
    const { engram, llm } = await open({ llm: true });
    if (!llm) throw new Error('no scripted server');
    await engram.sessions.append(ref, [{ role: 'user', content: 'I moved to Lisbon last month.' }]);
    llm.script(
      { content: 'not json at all' },
      { status: 503, body: { error: { message: 'overloaded' } } },
      {
        content: '{"memories": "wrong shape"}',
      },
    );
    now += 31_000;
    const [job] = await jobsOf(engram, WRITE_PATH_JOBS.extract);
    if (!job) throw new Error('no extraction job');
    const failed = await settled(engram, job);
    expect(failed.status).toBe('failed');
    expect(failed.attempts).toBe(3);
    expect(failed.error?.code).toBe('llm_output_invalid');
    expect(llm.requests).toHaveLength(3);
    expect((await engram.memories.list('default')).total).toBe(0);
    const cursors = await engram.store.documents.listDocuments('default', EXTRACTION_CURSORS, {
      limit: 10,
      offset: 0,
    });
    expect(cursors.total).toBe(0);
    expect((await engram.sessions.get(ref))?.messages).toHaveLength(1);
  });

  it('the catch-up summarizes against the window the failed write named', async () => {
    const { engram } = await open({ writePath: { summaryThreshold: 0.5, summaryKeepRecent: 0.25 } });
    const messages = Array.from({ length: 12 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `Message ${index} about the castle, the river and the famous pastries of city ${index}.`,
    }));
    const enqueue = vi.spyOn(engram.jobs, 'enqueue').mockRejectedValueOnce(new Error('queue is down'));
    await engram.sessions.put(ref, { messages }, { contextWindow: 400 });
    enqueue.mockRestore();
    expect(await jobsOf(engram, WRITE_PATH_JOBS.summarize)).toEqual([]);
    expect(await engram.writePath.catchUp()).toBe(0);
    const [job] = await jobsOf(engram, WRITE_PATH_JOBS.summarize);
    expect(job?.payload.contextWindow).toBe(400);
  });

  it('a failed enqueue keeps the write, reports the error, and the catch-up enqueues later', async () => {
    const errors: unknown[] = [];
    const store = createMemoryStore({ clock });
    const engram = await createEngram({
      store,
      clock,
      sweepIntervalMs: 0,
      defaultSources: false,
      onBackgroundError: (error) => errors.push(error),
      writePath: { catchUpIntervalMs: 0 },
    });
    opened.push({ engram });
    const enqueue = vi.spyOn(engram.jobs, 'enqueue').mockRejectedValueOnce(new Error('queue is down'));
    const state = await engram.sessions.put(ref, { memories: [{ id: 'm2', text: 'Ana likes trams' }] });
    expect(state.memories).toHaveLength(1);
    expect(errors).toEqual([new Error('queue is down')]);
    expect(await jobsOf(engram, WRITE_PATH_JOBS.promote)).toEqual([]);
    expect(await engram.writePath.catchUp()).toBe(0);
    enqueue.mockRestore();
    const [job] = await jobsOf(engram, WRITE_PATH_JOBS.promote);
    if (!job) throw new Error('the catch-up enqueued nothing');
    await settled(engram, job);
    expect((await engram.memories.get('default', 'm2')).text).toBe('Ana likes trams');
  });
});
