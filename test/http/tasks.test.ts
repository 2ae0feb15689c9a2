import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngram, type Engram } from '../../src/engram.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const temporaryDirectory = useTemporaryDirectories('engram-tasks-');
let engram: Engram;
let server: EngramServer;
let url: string;

beforeAll(async () => {
  const store = await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db') });
  engram = await createEngram({
    store,
    sweepIntervalMs: 0,
    defaultSources: false,
    jobs: { minPollMs: 5, maxPollMs: 20, retry: { baseDelayMs: 1, maxDelayMs: 5 } },
  });
  server = createServer({ engram, config: { port: 0, logLevel: 'silent' } });
  ({ url } = await server.listen());
});
afterAll(async () => {
  await server.close();
});

const getTask = async (id: string) => {
  const response = await fetch(`${url}/v1/tasks/${encodeURIComponent(id)}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** Polls the task until `done` holds (the runner works in the background). */
async function waitForTask(id: string, done: (body: Record<string, unknown>) => boolean) {
  for (let tries = 0; tries < 400; tries++) {
    const task = await getTask(id);
    if (done(task.body)) return task;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Task ${id} did not finish`);
}

const pydanticTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/;

describe('GET /v1/tasks/{task_id}', () => {
  it('shows a queued job as a pending AMS task', async () => {
    const job = await engram.jobs.enqueue('default', 'not_handled_here', { view_id: 'view-1' });
    const { status, body } = await getTask(job.id);
    expect(status).toBe(200);
    expect(body).toEqual({
      id: job.id,
      type: 'not_handled_here',
      status: 'pending',
      view_id: 'view-1',
      created_at: expect.stringMatching(pydanticTime),
      started_at: null,
      completed_at: null,
      error_message: null,
    });
  });

  it('follows a job run by the background runner to success', async () => {
    engram.jobs.register('count_summaries', async () => ({ summaries: 1 }));
    const job = await engram.jobs.enqueue('default', 'count_summaries', {});
    const { body } = await waitForTask(job.id, (task) => task.status === 'success');
    expect(body).toMatchObject({
      status: 'success',
      view_id: null,
      started_at: expect.stringMatching(pydanticTime),
      completed_at: expect.stringMatching(pydanticTime),
      error_message: null,
    });
  });

  it('shows a job that used up its attempts as failed with its error', async () => {
    engram.jobs.register(
      'always_fails',
      async () => {
        throw new Error('the model answered nonsense');
      },
      { maxAttempts: 2 },
    );
    const job = await engram.jobs.enqueue('default', 'always_fails', {});
    const { body } = await waitForTask(job.id, (task) => task.status === 'failed');
    expect(body).toMatchObject({ status: 'failed', error_message: 'the model answered nonsense' });
    expect((await engram.jobs.get('default', job.id))?.attempts).toBe(2);
  });

  it('answers 404 in AMS shape for an unknown id and for another tenant’s job', async () => {
    expect(await getTask('no-such-task')).toEqual({
      status: 404,
      body: { detail: 'Task no-such-task not found' },
    });
    const foreign = await engram.jobs.enqueue('other-tenant', 'not_handled_here', {});
    expect(await getTask(foreign.id)).toEqual({
      status: 404,
      body: { detail: `Task ${foreign.id} not found` },
    });
  });
});
