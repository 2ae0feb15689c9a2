import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngram, type Engram } from '../../src/engram.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { stringifiedWhole } from '../support/stringified-whole.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

// Own server (not useTestServer) to reach the engram behind it: another tenant's records are
// written there directly, since the HTTP caller is always the `default` tenant while auth is off.
const temporaryDirectory = useTemporaryDirectories('engram-ltm-search-');
let engram: Engram;
let server: EngramServer;
let url: string;
beforeAll(async () => {
  const store = await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db') });
  engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: false });
  server = createServer({ engram, config: { port: 0, logLevel: 'silent' } });
  url = (await server.listen()).url;
  const record = (id: string, fields: Record<string, unknown>) => ({ id, text: `memory ${id}`, ...fields });
  const response = await fetch(`${url}/v1/long-term-memory/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      memories: [
        record('f1', {
          namespace: 'ws:acme/team',
          user_id: 'u1',
          session_id: 's1',
          topics: ['food', 'travel'],
          entities: ['Ana'],
          memory_type: 'semantic',
          created_at: '2025-01-01T00:00:00Z',
          event_date: '2025-03-01T12:00:00.400Z',
        }),
        record('f2', {
          namespace: 'ws:acme/ops',
          user_id: 'u2',
          session_id: 's2',
          topics: ['food'],
          memory_type: 'episodic',
          created_at: '2025-02-01T00:00:00Z',
          extraction_strategy: 'summary',
        }),
        record('f3', {
          namespace: 'other',
          user_id: 'u1',
          topics: ['work'],
          entities: ['Bo', 'Ana'],
          memory_type: 'message',
          created_at: '2025-03-01T00:00:00Z',
        }),
        record('f4', {
          namespace: null,
          user_id: null,
          created_at: '2025-04-01T00:00:00Z',
          last_accessed: '2025-04-01T00:00:00Z',
        }),
      ],
    }),
  });
  expect(response.status).toBe(200);
  await engram.memories.create('another-tenant', [
    { id: 'foreign', text: 'memory foreign', namespace: 'ws:acme/team', userId: 'u1' },
  ]);
});
afterAll(async () => {
  await server.close();
});

type Json = Record<string, unknown>;
async function call(path: string, method = 'GET', body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}
const search = (body: Json) => call('/v1/long-term-memory/search', 'POST', body);
const idsOf = (result: { body: Json }) =>
  ((result.body.memories as Json[]) ?? []).map((memory) => memory.id).sort();
const matching = async (filters: Json) => {
  const result = await search({ text: '', limit: 100, ...filters });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  expect(result.body.total).toBe((result.body.memories as unknown[]).length);
  return idsOf(result);
};

describe('POST /v1/long-term-memory/search filters (AMS §3)', () => {
  it('applies every tag operator, the client aliases included, and ANDs them', async () => {
    expect(await matching({ namespace: { eq: 'other' } })).toEqual(['f3']);
    expect(await matching({ namespace: { ne: 'other' } })).toEqual(['f1', 'f2', 'f4']);
    expect(await matching({ namespace: { any: ['other', 'ws:acme/ops'] } })).toEqual(['f2', 'f3']);
    expect(await matching({ namespace: { startswith: 'ws:acme/' } })).toEqual(['f1', 'f2']);
    expect(await matching({ namespace: { startswith: 'WS:' } })).toEqual([]);
    expect(await matching({ topics: { all: ['food', 'travel'] } })).toEqual(['f1']);
    expect(await matching({ topics: { any: ['travel', 'work'] } })).toEqual(['f1', 'f3']);
    expect(await matching({ topics: { none: ['food'] } })).toEqual(['f3', 'f4']);
    expect(await matching({ entities: { eq: 'Ana' }, user_id: { eq: 'u1' } })).toEqual(['f1', 'f3']);
    expect(await matching({ user_id: { in_: ['u2'] } })).toEqual(['f2']);
    expect(await matching({ user_id: { not_eq: 'u1' } })).toEqual(['f2', 'f4']);
    expect(await matching({ session_id: { not_in: ['s1', 's2'] } })).toEqual(['f3', 'f4']);
    // AMS applies one operator per object; engram applies all of them.
    expect(await matching({ topics: { eq: 'food', ne: undefined, none: ['travel'] } })).toEqual(['f2']);
    expect(await matching({ memory_type: { any: ['semantic', 'message'] } })).toEqual(['f1', 'f3', 'f4']);
    expect(await matching({ memory_type: { ne: 'semantic', not_in: ['message'] } })).toEqual(['f2']);
    expect(await matching({ extraction_strategy: { eq: 'summary' } })).toEqual(['f2']);
    expect(await matching({ extraction_strategy: { ne: 'summary' } })).toEqual(['f1', 'f3', 'f4']);
    // Empty filter objects and unknown keys (`field`) filter nothing.
    expect(await matching({ namespace: {}, topics: { field: 'text' }, user_id: null })).toEqual([
      'f1',
      'f2',
      'f3',
      'f4',
    ]);
  });

  it('applies every datetime operator on whole seconds for eq/ne, numbers as Unix time', async () => {
    expect(
      await matching({ created_at: { gte: '2025-02-01T00:00:00Z', lte: '2025-03-01T00:00:00Z' } }),
    ).toEqual(['f2', 'f3']);
    expect(await matching({ created_at: { gt: '2025-02-01T00:00:00Z', lt: 1_743_465_600 } })).toEqual(['f3']);
    expect(await matching({ created_at: { eq: '2025-02-01T00:00:00.999Z' } })).toEqual(['f2']);
    expect(await matching({ created_at: { ne: '2025-02-01T00:00:00Z' } })).toEqual(['f1', 'f3', 'f4']);
    expect(await matching({ event_date: { eq: '2025-03-01T12:00:00Z' } })).toEqual(['f1']);
    const between = ['2025-02-01T00:00:00Z', '2025-03-01T00:00:00Z'];
    expect(await matching({ created_at: { between } })).toEqual(['f2', 'f3']);
    expect(await matching({ created_at: { between, inclusive: 'neither' } })).toEqual([]);
    expect(await matching({ created_at: { between, inclusive: 'left' } })).toEqual(['f2']);
    expect(await matching({ created_at: { between, inclusive: 'right' } })).toEqual(['f3']);
    expect(await matching({ last_accessed: { lte: '2000-01-01' } })).toEqual([]);
  });

  it('answers 422 value errors for the filter combinations AMS forbids', async () => {
    const invalid = [
      { namespace: { eq: 'a', ne: 'b' } },
      { topics: { any: ['a'], all: ['b'] } },
      { topics: { any: [] } },
      { namespace: { startswith: '' } },
      { namespace: { startswith: 'a', eq: 'b' } },
      { memory_type: { eq: 'procedural' } },
      { created_at: { between: ['2025-01-01'] } },
      { created_at: { between: ['2025-01-01', '2025-02-01'], gt: '2025-01-01' } },
      { created_at: { gt: 'yesterday' } },
      // Lists past their bound are refused as a whole (before any item is parsed).
      { topics: { in_: Array.from({ length: 1_001 }, (_, index) => `t${index}`) } },
      { created_at: { between: Array.from({ length: 40_000 }, () => '2025-01-01') } },
    ];
    for (const filters of invalid) {
      const result = await search({ text: '', ...filters });
      expect({ filters, status: result.status }).toEqual({ filters, status: 422 });
    }
    const clash = await search({ namespace: { eq: 'a', ne: 'b' } });
    expect((clash.body.detail as Json[])[0]).toMatchObject({
      type: 'value_error',
      loc: ['body', 'namespace'],
      msg: 'Value error, eq and ne cannot both be set',
    });
  });

  it('never relaxes the namespace filter (no soft-filter fallback)', async () => {
    const none = await search({ text: 'memory', namespace: { eq: 'nowhere' } });
    expect(none).toEqual({ status: 200, body: { memories: [], total: 0, next_offset: null } });
  });
});

describe('search modes, scores and pagination (AMS §4.8, §5)', () => {
  it('pages with real totals and next_offset, every record once', async () => {
    const seen: unknown[] = [];
    for (let offset = 0; offset < 6; offset += 3) {
      const page = await search({ text: 'memory', search_mode: 'keyword', limit: 3, offset });
      expect(page.body.total).toBe(4);
      expect(page.body.next_offset).toBe(offset === 0 ? 3 : null);
      seen.push(...(page.body.memories as Json[]).map((memory) => memory.id));
    }
    expect(seen.sort()).toEqual(['f1', 'f2', 'f3', 'f4']);
    const listing = await search({ text: '   ', limit: 2 });
    expect(listing.body).toMatchObject({ total: 4, next_offset: 2 });
    for (const memory of listing.body.memories as Json[]) {
      expect(memory).toMatchObject({ dist: 0, score: null, score_type: null });
    }
  });

  it('scores keyword and hybrid hits relative to the best (top = 1), semantic by distance', async () => {
    for (const mode of ['keyword', 'hybrid'] as const) {
      const result = await search({ text: 'memory f3', search_mode: mode, recency_boost: false });
      const [top, ...rest] = result.body.memories as Json[];
      expect(top).toMatchObject({ id: 'f3', score: 1, dist: 0, score_type: mode });
      for (const hit of rest) expect((hit.dist as number) + (hit.score as number)).toBeCloseTo(1);
    }
    const semantic = await search({ text: 'memory f3', distance_threshold: 2, recency_boost: 'false' });
    const hits = semantic.body.memories as Json[];
    const distances = hits.map((hit) => hit.dist as number);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    for (const hit of hits) expect(hit.score).toBeCloseTo(Math.max(0, 1 - (hit.dist as number)));
    const none = await search({ text: 'memory', distance_threshold: 0 });
    expect(none.body.total).toBe((none.body.memories as unknown[]).length);
  });

  it('keyword mode is BM25 alone: no neighbouring turn or boost brings in a record without the words', async () => {
    await engram.memories.create(
      'default',
      ['Do you like espresso?', 'We went to the beach yesterday', 'The weather was sunny'].map(
        (text, index) => ({
          id: `turn-${index}`,
          text,
          memoryType: 'message' as const,
          sessionId: 'cafe',
          namespace: 'turns',
          createdAt: `2025-05-01T10:0${index}:00Z`,
        }),
      ),
    );
    const result = await search({ text: 'espresso', search_mode: 'keyword', namespace: { eq: 'turns' } });
    expect(idsOf(result)).toEqual(['turn-0']);
    expect(result.body.total).toBe(1);
    // The hybrid (the default) may add the turns around a hit: that is its neighbour context.
    const hybrid = await search({ text: 'espresso', namespace: { eq: 'turns' } });
    expect(idsOf(hybrid)).toContain('turn-0');
    await engram.memories.delete('default', ['turn-0', 'turn-1', 'turn-2']);
  });

  it('rejects bad modes, bounds and a threshold outside semantic mode', async () => {
    expect(await search({ text: 'x', search_mode: 'keyword', distance_threshold: 0.5 })).toEqual({
      status: 400,
      body: { detail: 'distance_threshold is only supported for semantic search mode' },
    });
    const mode = await search({ text: 'x', search_mode: 'fuzzy' });
    expect((mode.body.detail as Json[])[0]).toEqual({
      type: 'enum',
      loc: ['body', 'search_mode'],
      msg: "Input should be 'semantic', 'keyword' or 'hybrid'",
      input: 'fuzzy',
      ctx: { expected: "'semantic', 'keyword' or 'hybrid'" },
    });
    const limit = await search({ text: 'x', limit: 101 });
    expect((limit.body.detail as Json[])[0]).toMatchObject({
      type: 'less_than_equal',
      loc: ['body', 'limit'],
    });
    expect((await search({ text: 'x', hybrid_alpha: 1.5 })).status).toBe(422);
    expect((await search({ text: 'x', offset: -1 })).status).toBe(422);
  });

  it('sorts the whole result by creation before paging with the `sort` extension', async () => {
    const pages = async (body: Json) => {
      const ids: unknown[] = [];
      for (const offset of [0, 2]) {
        const page = await search({ limit: 2, offset, recency_boost: false, ...body });
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        expect(page.body.total).toBe(4);
        ids.push(...(page.body.memories as Json[]).map((memory) => memory.id));
      }
      return ids;
    };
    for (const search_mode of ['keyword', 'hybrid'] as const) {
      // By score f3 ranks first; sorted, each page holds the next records of the whole result.
      expect((await pages({ text: 'memory f3', search_mode }))[0]).toBe('f3');
      expect(await pages({ text: 'memory f3', search_mode, sort: 'created_asc' })).toEqual([
        'f1',
        'f2',
        'f3',
        'f4',
      ]);
      expect(await pages({ text: 'memory f3', search_mode, sort: 'created_desc' })).toEqual([
        'f4',
        'f3',
        'f2',
        'f1',
      ]);
    }
    expect(await pages({ text: '', sort: 'created_asc' })).toEqual(['f1', 'f2', 'f3', 'f4']);
    expect(await pages({ text: '', sort: 'created_desc', recency_boost: true })).toEqual([
      'f4',
      'f3',
      'f2',
      'f1',
    ]);
    const bad = await search({ text: 'x', sort: 'random' });
    expect(bad.status).toBe(422);
    expect((bad.body.detail as Json[])[0]).toMatchObject({ type: 'enum', loc: ['body', 'sort'] });
  });

  it('bumps access of re-ranked hits at most once per 15 minutes', async () => {
    const old = '2025-01-01T00:00:00Z';
    await call('/v1/long-term-memory/', 'POST', {
      memories: [{ id: 'bump', text: 'bump me', namespace: 'bump', last_accessed: old }],
    });
    await search({ text: '', namespace: { eq: 'bump' }, recency_boost: false });
    expect((await call('/v1/long-term-memory/bump')).body).toMatchObject({ access_count: 0 });
    await search({ text: '', namespace: { eq: 'bump' } });
    const after = (await call('/v1/long-term-memory/bump')).body;
    expect(after.access_count).toBe(1);
    expect(Date.parse(after.last_accessed as string)).toBeGreaterThan(Date.parse(old));
    await search({ text: 'bump', namespace: { eq: 'bump' } });
    expect((await call('/v1/long-term-memory/bump')).body.access_count).toBe(1);
  });
});

describe('tenant scoping', () => {
  it('treats another tenant’s ids as absent on every route', async () => {
    expect((await call('/v1/long-term-memory/foreign')).status).toBe(404);
    expect((await call('/v1/long-term-memory/foreign', 'PATCH', { text: 'mine now' })).status).toBe(404);
    expect((await call('/v1/long-term-memory?memory_ids=foreign', 'DELETE')).body).toEqual({
      status: 'ok, deleted 0 memories',
    });
    // An empty value names no memory (AMS: deleted 0), not a 400.
    expect((await call('/v1/long-term-memory?memory_ids=', 'DELETE')).body).toEqual({
      status: 'ok, deleted 0 memories',
    });
    expect(await matching({ namespace: { eq: 'ws:acme/team' } })).toEqual(['f1']);
    expect((await engram.memories.get('another-tenant', 'foreign')).text).toBe('memory foreign');
    const forget = await call('/v1/long-term-memory/forget', 'POST', { policy: { budget: 0 } });
    expect(forget.body.deleted_ids).not.toContain('foreign');
  });
});

describe('large answers', () => {
  it('serializes 100 hits of 20,000 characters hit by hit, answering the bytes of a whole serialization', async () => {
    const memories = Array.from({ length: 100 }, (_, index) => ({
      id: `large-${index}`,
      text: `${index} ${'é😀 long "text"\\ '.repeat(1_250)}`.slice(0, 20_000),
      namespace: 'large-answers',
    }));
    for (let start = 0; start < memories.length; start += 20) {
      const created = await call('/v1/long-term-memory/', 'POST', {
        memories: memories.slice(start, start + 20),
      });
      expect(created.status).toBe(200);
    }
    const { result: response, whole } = await stringifiedWhole('memories', () =>
      fetch(`${url}/v1/long-term-memory/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"text":"","limit":100,"namespace":{"eq":"large-answers"}}',
      }),
    );
    // Never serialized whole: one hit at a time (between slices), then the rest.
    expect(whole).toEqual([]);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    const answer = JSON.parse(text) as { memories: { id: string; text: string }[]; total: number };
    expect(text).toBe(JSON.stringify(answer));
    expect(answer.total).toBe(100);
    expect(answer.memories.map((memory) => memory.text).sort()).toEqual(memories.map((m) => m.text).sort());
  });
});
