import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { WRITE_PATH_JOBS } from '../../src/engine/write-path/create-write-path.js';
import { createEngram, type Engram } from '../../src/engram.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { resolveServerConfig } from '../../src/server/server-config.js';
import { writePathOptionsOf } from '../../src/server/write-path-options.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const temporaryDirectory = useTemporaryDirectories('engram-message-index-');
let engram: Engram;
let server: EngramServer;
let url: string;
// Real time plus a shift the test moves forward to expire sessions.
let shift = 0;
const clock = () => new Date(Date.now() + shift);

beforeAll(async () => {
  const config = resolveServerConfig(
    { port: '0' },
    { ENGRAM_INDEX_MESSAGES: 'true', ENGRAM_LOG_LEVEL: 'silent' },
  );
  const store = await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db'), clock });
  engram = await createEngram({
    store,
    clock,
    sweepIntervalMs: 0,
    defaultSources: false,
    ...writePathOptionsOf(config, () => {}),
    jobs: { minPollMs: 5, maxPollMs: 20, retry: { baseDelayMs: 1, maxDelayMs: 5 }, defaultMaxAttempts: 3 },
  });
  server = createServer({ engram, config });
  ({ url } = await server.listen());
});
afterAll(async () => {
  await server.close();
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

async function indexed(): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    const { jobs } = await engram.jobs.list('default', {
      type: WRITE_PATH_JOBS.indexMessages,
      limit: 100,
      offset: 0,
    });
    if (jobs.length > 0 && jobs.every((job) => job.status === 'succeeded')) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('index jobs did not finish');
}

describe('ENGRAM_INDEX_MESSAGES=true', () => {
  it('indexes messages in the background and GET rebuilds an expired session from them', async () => {
    const put = await call('/v1/working-memory/trip?namespace=travel', 'PUT', {
      namespace: 'travel',
      user_id: 'ana',
      ttl_seconds: 60,
      messages: [
        {
          id: 'm1',
          role: 'user',
          content: 'Find me a hotel: near the river.',
          created_at: '2026-03-01T10:00:00Z',
        },
        {
          id: 'm2',
          role: 'assistant',
          content: 'Hotel Ribeira has rooms.',
          created_at: '2026-03-01T10:00:05Z',
        },
      ],
      data: { step: 1 },
    });
    expect(put.status).toBe(200);
    await indexed();
    const search = await call('/v1/long-term-memory/search', 'POST', {
      text: 'hotel',
      memory_type: { eq: 'message' },
      session_id: { eq: 'trip' },
    });
    expect((search.body.memories as { text: string }[]).map((memory) => memory.text).sort()).toEqual([
      'assistant: Hotel Ribeira has rooms.',
      'user: Find me a hotel: near the river.',
    ]);

    shift += 61_000;
    const get = await call('/v1/working-memory/trip?namespace=travel&user_id=ana');
    expect(get.status).toBe(200);
    expect(get.body).toMatchObject({ session_id: 'trip', namespace: 'travel', user_id: 'ana', data: {} });
    expect(get.body.context ?? '').toBe('');
    expect(get.body.memories).toEqual([]);
    expect((get.body.messages as Record<string, unknown>[]).map((m) => [m.id, m.role, m.content])).toEqual([
      ['m1', 'user', 'Find me a hotel: near the river.'],
      ['m2', 'assistant', 'Hotel Ribeira has rooms.'],
    ]);

    // DELETE forgets it for good: no rebuild afterwards.
    expect((await call('/v1/working-memory/trip?namespace=travel&user_id=ana', 'DELETE')).status).toBe(200);
    expect((await call('/v1/working-memory/trip?namespace=travel&user_id=ana')).status).toBe(404);
  });
});

describe('the indexMessages setting', () => {
  it('is read from ENGRAM_INDEX_MESSAGES over the config file, and rejects anything but true or false', () => {
    const readFile = () => JSON.stringify({ writePath: { indexMessages: true } });
    expect(resolveServerConfig({ config: '/e.json' }, {}, readFile).writePath?.indexMessages).toBe(true);
    expect(
      resolveServerConfig({ config: '/e.json' }, { ENGRAM_INDEX_MESSAGES: 'false' }, readFile).writePath
        ?.indexMessages,
    ).toBe(false);
    expect(resolveServerConfig({}, {}).writePath).toBeUndefined();
    expect(() => resolveServerConfig({}, { ENGRAM_INDEX_MESSAGES: 'yes' })).toThrow(ValidationError);
  });
});
