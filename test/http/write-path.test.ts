import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITE_PATH_JOBS } from '../../src/engine/write-path/create-write-path.js';
import { createEngram, type Engram } from '../../src/engram.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { resolveServerConfig } from '../../src/server/server-config.js';
import { writePathOptionsOf } from '../../src/server/write-path-options.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../support/scripted-openai-server.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const temporaryDirectory = useTemporaryDirectories('engram-write-path-');
let llm: ScriptedOpenAIServer;
let engram: Engram;
let server: EngramServer;
let url: string;
const notices: string[] = [];

beforeAll(async () => {
  llm = await startScriptedOpenAIServer();
  // The settings as `engram serve` resolves them: flags for the model, the key and debounce from the environment.
  const config = resolveServerConfig(
    { 'llm-base-url': llm.baseUrl, 'llm-model': 'scripted-model', port: '0' },
    { ENGRAM_LLM_API_KEY: 'sk-test', ENGRAM_EXTRACTION_DEBOUNCE_MS: '300', ENGRAM_LOG_LEVEL: 'silent' },
  );
  const store = await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db') });
  engram = await createEngram({
    store,
    sweepIntervalMs: 0,
    defaultSources: false,
    ...writePathOptionsOf(config, (message) => notices.push(message)),
    jobs: { minPollMs: 5, maxPollMs: 20, retry: { baseDelayMs: 1, maxDelayMs: 5 }, defaultMaxAttempts: 3 },
  });
  server = createServer({ engram, config });
  ({ url } = await server.listen());
});
afterAll(async () => {
  await server.close();
  await llm.close();
});

const call = async (path: string, method = 'GET', body?: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** The one job of `type` for the session, once enqueued. */
async function jobFor(type: string, sessionId: string) {
  const { jobs } = await engram.jobs.list('default', { type, limit: 100, offset: 0 });
  const job = jobs.find((candidate) => candidate.payload.sessionId === sessionId);
  if (!job) throw new Error(`No ${type} job for ${sessionId}`);
  return job;
}

/** Polls GET /v1/tasks/{id} until the task has finished. */
async function finishedTask(id: string) {
  for (let tries = 0; tries < 600; tries++) {
    const { body } = await call(`/v1/tasks/${id}`);
    if (body.status === 'success' || body.status === 'failed') return body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Task ${id} did not finish`);
}

const extraction = JSON.stringify({
  memories: [
    { type: 'semantic', text: 'Ana lives in Lisbon.', topics: ['home'], entities: ['Ana', 'Lisbon'] },
  ],
});

describe('the background write path through the server', () => {
  it('says nothing is off when an LLM is configured', () => {
    expect(notices).toEqual([]);
    expect(engram.llm?.model).toContain('scripted-model');
  });

  it('a PUT returns before any LLM call; promotion and extraction then run as tasks', async () => {
    const put = await call('/v1/working-memory/trip?user_id=ana', 'PUT', {
      session_id: 'trip',
      user_id: 'ana',
      messages: [
        { role: 'user', content: 'I moved to Lisbon last month.' },
        { role: 'assistant', content: 'Welcome to Lisbon!' },
      ],
      memories: [{ id: 'diet', text: 'Ana is vegetarian.', memory_type: 'semantic', user_id: 'ana' }],
    });
    expect(put.status).toBe(200);
    expect(llm.requests).toHaveLength(0);

    const promotion = await finishedTask((await jobFor(WRITE_PATH_JOBS.promote, 'trip')).id);
    expect(promotion).toMatchObject({
      type: WRITE_PATH_JOBS.promote,
      status: 'success',
      error_message: null,
    });
    expect((await call('/v1/long-term-memory/diet')).body).toMatchObject({ text: 'Ana is vegetarian.' });

    llm.script({ content: extraction });
    const extract = await jobFor(WRITE_PATH_JOBS.extract, 'trip');
    expect(await finishedTask(extract.id)).toMatchObject({ status: 'success' });
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(JSON.stringify(llm.requests[0]?.body.messages)).toContain('I moved to Lisbon last month.');
    const search = await call('/v1/long-term-memory/search', 'POST', {
      text: 'where does Ana live',
      user_id: { eq: 'ana' },
    });
    const texts = (search.body.memories as { text: string }[]).map((memory) => memory.text);
    expect(texts).toEqual(expect.arrayContaining(['Ana lives in Lisbon.', 'Ana is vegetarian.']));
  });

  it('a job whose model keeps failing ends failed with its error, leaving session and memory unchanged', async () => {
    const before = (await engram.memories.list('default')).total;
    const put = await call('/v1/working-memory/broken', 'PUT', {
      session_id: 'broken',
      messages: [{ role: 'user', content: 'My sister Rita lives in Porto.' }],
    });
    expect(put.status).toBe(200);
    llm.script(
      { content: 'Sure! Here are the memories: none' },
      { content: '{"memories": 42}' },
      { raw: '{oops' },
    );
    const task = await finishedTask((await jobFor(WRITE_PATH_JOBS.extract, 'broken')).id);
    expect(task.status).toBe('failed');
    expect(task.error_message).toEqual(expect.stringContaining('Invalid chat completion response'));
    expect(llm.remaining()).toBe(0);
    expect((await engram.memories.list('default')).total).toBe(before);
    const session = await call('/v1/working-memory/broken');
    expect(session.body).toMatchObject({
      context: null,
      messages: [expect.objectContaining({ content: 'My sister Rita lives in Porto.' })],
    });
  });
});
