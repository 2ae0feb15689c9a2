import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngram, type Engram } from '../../src/engram.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/**
 * The GET working-memory response cache must never serve a stale answer: here a second engram on
 * its own SQLite connection to the same file (as another process would be) writes behind the
 * server's back, and every GET must show that write at once.
 */
const temporaryDirectory = useTemporaryDirectories('engram-http-cache-');
let server: EngramServer;
let url = '';
let other: Engram;

beforeAll(async () => {
  const path = join(temporaryDirectory(), 'engram.db');
  const served = await createEngram({ store: await createSqliteStore({ path }), sweepIntervalMs: 0 });
  other = await createEngram({ store: await createSqliteStore({ path }), sweepIntervalMs: 0 });
  server = createServer({ engram: served, config: { port: 0, logLevel: 'silent' } });
  url = (await server.listen()).url;
});

afterAll(async () => {
  await server.close();
  await other.close();
});

const get = async (path: string, method = 'GET') => {
  const response = await fetch(`${url}${path}`, { method });
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    type: response.headers.get('content-type'),
    text: await response.text(),
  };
};
const contents = (text: string) =>
  (JSON.parse(text) as { messages: { content: string }[] }).messages.map((message) => message.content);
const ref = (sessionId: string) => ({ sessionId, namespace: 'app', userId: null });

describe('GET /v1/working-memory/{id} response cache', () => {
  it('answers a repeated GET byte for byte as the first, with the same headers', async () => {
    await other.sessions.append(ref('same'), [{ role: 'user', content: 'one' }]);
    const first = await get('/v1/working-memory/same?namespace=app');
    const second = await get('/v1/working-memory/same?namespace=app');
    expect(first.status).toBe(200);
    expect(second).toEqual(first);
    expect(first).toMatchObject({ etag: '"1"', type: 'application/json; charset=utf-8' });
    const head = await get('/v1/working-memory/same?namespace=app', 'HEAD');
    expect(head).toMatchObject({ status: 200, etag: '"1"', text: '' });
  });

  it("shows another connection's appends, replaces and deletes at once", async () => {
    const path = '/v1/working-memory/shared?namespace=app';
    await other.sessions.append(ref('shared'), [{ role: 'user', content: 'a' }]);
    expect(contents((await get(path)).text)).toEqual(['a']);
    expect(contents((await get(path)).text)).toEqual(['a']);
    await other.sessions.append(ref('shared'), [{ role: 'user', content: 'b' }]);
    const appended = await get(path);
    expect(contents(appended.text)).toEqual(['a', 'b']);
    expect(appended.etag).toBe('"2"');
    await other.sessions.patch(ref('shared'), { data: { x: 1 } });
    expect(JSON.parse((await get(path)).text).data).toEqual({ x: 1 });
    await other.sessions.delete(ref('shared'));
    expect((await get(path)).status).toBe(404);
  });

  it('never mistakes a re-created session at the same version for the old one', async () => {
    const path = '/v1/working-memory/again?namespace=app';
    for (const content of ['first life', 'second life', 'third life']) {
      await other.sessions.put(ref('again'), { messages: [{ role: 'user', content }] });
      const answer = await get(path);
      expect(answer.etag).toBe('"1"');
      expect(contents(answer.text)).toEqual([content]);
      expect((await get(path)).text).toBe(answer.text);
      await other.sessions.delete(ref('again'));
    }
  });

  it('keeps answers for different query parameters apart', async () => {
    const messages = ['m1', 'm2', 'm3'].map((content) => ({ role: 'user' as const, content }));
    await other.sessions.append(ref('views'), messages);
    const all = await get('/v1/working-memory/views?namespace=app');
    const recent = await get('/v1/working-memory/views?namespace=app&recent_messages_limit=1');
    const fitted = await get('/v1/working-memory/views?namespace=app&context_window_max=1000');
    expect(contents(all.text)).toEqual(['m1', 'm2', 'm3']);
    expect(contents(recent.text)).toEqual(['m3']);
    expect(JSON.parse(fitted.text).context_percentage_total_used).toBeGreaterThan(0);
    expect(JSON.parse(all.text).context_percentage_total_used).toBeNull();
    expect((await get('/v1/working-memory/views?namespace=app&recent_messages_limit=1')).text).toBe(
      recent.text,
    );
  });

  it('does not cache the AMS fallback to the one session with an id', async () => {
    await other.sessions.append(ref('lonely'), [{ role: 'user', content: 'x' }]);
    // No namespace in the query: the exact key (no namespace) is absent, the unique match answers.
    expect((await get('/v1/working-memory/lonely')).status).toBe(200);
    await other.sessions.append({ sessionId: 'lonely', namespace: 'elsewhere', userId: null }, [
      { role: 'user', content: 'y' },
    ]);
    // Now ambiguous: AMS answers 404, which a cached fallback answer would hide.
    expect((await get('/v1/working-memory/lonely')).status).toBe(404);
  });
});
