import { describe, expect, it } from 'vitest';
import { useTestServer } from './test-server.js';

const testServer = useTestServer();
type Json = Record<string, unknown>;

async function call(path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await testServer().request(path, { method, ...(body === undefined ? {} : { body }) });
  return { status: response.status, body: (await response.json()) as Json };
}
const create = (memories: unknown[], extra: Json = {}) =>
  call('/v1/long-term-memory/', 'POST', { memories, ...extra });
const search = (body: Json) => call('/v1/long-term-memory/search', 'POST', body);
const ids = (result: { body: Json }) => (result.body.memories as Json[]).map((memory) => memory.id);

const recordFields = [
  'id',
  'text',
  'session_id',
  'user_id',
  'namespace',
  'last_accessed',
  'created_at',
  'updated_at',
  'pinned',
  'access_count',
  'topics',
  'entities',
  'memory_hash',
  'discrete_memory_extracted',
  'memory_type',
  'persisted_at',
  'extracted_from',
  'event_date',
  'extraction_strategy',
  'extraction_strategy_config',
  'metadata',
];
const pydanticTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/;

describe('POST /v1/long-term-memory/ and GET /v1/long-term-memory/{id} (AMS §4.7, §4.9)', () => {
  it('acknowledges, then reads back all 21 fields in AMS form', async () => {
    const created = await create(
      [
        {
          id: 'tea-1',
          text: 'User likes oolong tea',
          user_id: 'u1',
          namespace: 'appendix',
          topics: ['beverages'],
          created_at: '2025-06-01T10:05:00.120Z',
          persisted_at: '2020-01-01T00:00:00Z',
          metadata: { source: 'chat', nested: { a: [1] } },
          unknown_field: 'ignored',
        },
      ],
      { deduplicate: true },
    );
    expect(created).toEqual({ status: 200, body: { status: 'ok' } });
    const read = await call('/v1/long-term-memory/tea-1?namespace=ignored');
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual([...recordFields].sort());
    expect(read.body).toMatchObject({
      id: 'tea-1',
      text: 'User likes oolong tea',
      session_id: null,
      user_id: 'u1',
      namespace: 'appendix',
      created_at: '2025-06-01T10:05:00.120000Z',
      pinned: false,
      access_count: 0,
      topics: ['beverages'],
      entities: [],
      discrete_memory_extracted: 't',
      memory_type: 'semantic',
      persisted_at: null,
      extracted_from: [],
      event_date: null,
      extraction_strategy: 'discrete',
      extraction_strategy_config: {},
      metadata: { source: 'chat', nested: { a: [1] } },
    });
    expect(read.body.memory_hash).toMatch(/^[0-9a-f]{64}$/);
    for (const field of ['last_accessed', 'updated_at']) expect(read.body[field]).toMatch(pydanticTime);
  });

  it('answers the Appendix A search with dist, score and score_type', async () => {
    const result = await search({ text: 'tea', namespace: { eq: 'appendix' }, limit: 2 });
    expect(result.status).toBe(200);
    expect(result.body.total).toBe(1);
    expect(result.body.next_offset).toBeNull();
    const [hit] = result.body.memories as Json[];
    expect(Object.keys(hit ?? {}).sort()).toEqual([...recordFields, 'dist', 'score', 'score_type'].sort());
    // No mode: engram's hybrid ranking, scored relative to the best hit.
    expect(hit).toMatchObject({ id: 'tea-1', score_type: 'hybrid', score: 1, dist: 0 });
  });

  it('searches a text longer than a search takes by its start and end, as AMS takes any length', async () => {
    await create([{ id: 'long-text-1', text: 'Ada prefers window seats on trains', namespace: 'long-text' }]);
    const text = `window seats ${'and some pasted filler text '.repeat(600)}`;
    expect(text.length).toBeGreaterThan(10_000);
    let found = await search({ text, namespace: { eq: 'long-text' } });
    for (let tries = 0; tries < 50 && ids(found).length === 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      found = await search({ text, namespace: { eq: 'long-text' } });
    }
    expect(found.status).toBe(200);
    expect(ids(found)).toEqual(['long-text-1']);
  });

  it('answers a long history in pages of at most 250,000 characters, whole and in order', async () => {
    // 60 versions of 20,000 characters (the longest a memory may be): 12 fit in a page.
    const text = (version: number) => `${`Version ${version}: `.padEnd(19_999, 'policy changed again ')}.`;
    await create([{ id: 'long-history', text: text(0), namespace: 'history' }]);
    for (let version = 1; version < 60; version++)
      await call('/v1/long-term-memory/long-history', 'PATCH', { text: text(version) });
    const versions: Json[] = [];
    const pages: number[][] = [];
    for (let before: number | null | undefined; before !== null; ) {
      const query = before === undefined ? '' : `&before_version=${before}`;
      const page = await call(`/v1/long-term-memory/long-history/history?limit=1000${query}`);
      expect(page.status).toBe(200);
      expect(page.body.id).toBe('long-history');
      const numbers = (page.body.versions as Json[]).map((version) => version.version as number);
      pages.push(numbers);
      versions.push(...(page.body.versions as Json[]));
      before = page.body.next_before_version as number | null;
      if (before !== null) expect(before).toBe(numbers.at(-1));
    }
    expect(pages.map((page) => page.length)).toEqual([12, 12, 12, 12, 12]);
    expect(versions.map((version) => version.text)).toEqual(
      Array.from({ length: 60 }, (_, index) => text(59 - index)),
    );
    expect(versions.slice(1).every((version) => typeof version.valid_to === 'string')).toBe(true);
    // A limit ends a page too; below the oldest version a page is empty, for a memory that exists.
    const limited = await call('/v1/long-term-memory/long-history/history?limit=2&before_version=11');
    expect(limited.body).toMatchObject({ next_before_version: 9 });
    expect((limited.body.versions as Json[]).map((version) => version.version)).toEqual([10, 9]);
    const none = await call('/v1/long-term-memory/long-history/history?before_version=1');
    expect(none.body).toEqual({ id: 'long-history', versions: [], next_before_version: null });
    expect((await call('/v1/long-term-memory/missing-one/history?before_version=1')).status).toBe(404);
    expect((await call('/v1/long-term-memory/long-history/history?before_version=0')).status).toBe(422);
  });

  it('upserts by id as a new version under the same id (nothing lost); of two records with one id the last wins', async () => {
    await create([{ id: 'up-1', text: 'first text', namespace: 'upsert', topics: ['a'] }]);
    const first = await call('/v1/long-term-memory/up-1');
    await create([
      { id: 'up-1', text: 'second text', namespace: 'upsert' },
      { id: 'up-1', text: 'third text', namespace: 'upsert', memory_type: 'episodic' },
    ]);
    const read = await call('/v1/long-term-memory/up-1');
    expect(read.body).toMatchObject({ id: 'up-1', text: 'third text', memory_type: 'episodic', topics: [] });
    expect(read.body.created_at).toBe(first.body.created_at);
    const listed = await search({ text: '', namespace: { eq: 'upsert' } });
    expect(ids(listed)).toEqual(['up-1']);
    // The prior version is kept in the memory's history.
    const history = await call('/v1/long-term-memory/up-1/history');
    expect(history.status).toBe(200);
    expect(history.body.id).toBe('up-1');
    expect((history.body.versions as Json[]).map((version) => version.text)).toEqual([
      'third text',
      'first text',
    ]);

    // Creating it again with the same content changes nothing.
    const same = { id: 'up-1', text: 'third text', namespace: 'upsert', memory_type: 'episodic' };
    await create([same]);
    expect((await call('/v1/long-term-memory/up-1/history')).body.versions).toHaveLength(2);
    await create([{ ...same, text: 'fourth text' }]);
    const fourth = await call('/v1/long-term-memory/up-1');
    expect(fourth.body).toMatchObject({ id: 'up-1', text: 'fourth text' });
    // DELETE removes the memory with its history.
    expect((await call('/v1/long-term-memory?memory_ids=up-1', 'DELETE')).body.status).toBe(
      'ok, deleted 1 memories',
    );
    expect((await call('/v1/long-term-memory/up-1')).status).toBe(404);
    expect((await call('/v1/long-term-memory/up-1/history')).status).toBe(404);
  });

  it('keeps identical records under their own ids with deduplicate false, and drops the copy by default', async () => {
    const same = { text: 'identical words here', namespace: 'dedup-off' };
    const answer = await call('/v1/long-term-memory/', 'POST', {
      memories: [
        { ...same, id: 'same-1' },
        { ...same, id: 'same-2' },
      ],
      deduplicate: false,
    });
    expect(answer.status).toBe(200);
    expect(ids(await search({ text: '', namespace: { eq: 'dedup-off' } })).sort()).toEqual([
      'same-1',
      'same-2',
    ]);
    await create([{ ...same, id: 'same-3' }]);
    expect((await call('/v1/long-term-memory/same-3')).status).toBe(404);
  });

  it('versions concurrent creates of one id without losing or failing any', async () => {
    await create([{ id: 'race-1', text: 'version 0', namespace: 'race' }]);
    const results = await Promise.all(
      [1, 2, 3].map((n) => create([{ id: 'race-1', text: `version ${n}`, namespace: 'race' }])),
    );
    expect(results.map((result) => result.status)).toEqual([200, 200, 200]);
    const listed = await search({ text: '', namespace: { eq: 'race' } });
    expect(listed.body.total).toBe(1);
    expect(ids(listed)).toEqual(['race-1']);
    const history = await call('/v1/long-term-memory/race-1/history');
    expect((history.body.versions as Json[]).map((version) => version.version)).toEqual([4, 3, 2, 1]);
  });

  it('drops a new record whose content equals a current one (AMS hash dedup, documented)', async () => {
    await create([{ id: 'dup-a', text: 'same words', namespace: 'dedup' }]);
    expect((await create([{ id: 'dup-b', text: 'same words', namespace: 'dedup' }])).status).toBe(200);
    expect((await call('/v1/long-term-memory/dup-b')).status).toBe(404);
    expect(ids(await search({ text: '', namespace: { eq: 'dedup' } }))).toEqual(['dup-a']);
  });

  it('rejects what AMS rejects, with its 422 shapes', async () => {
    const comma = await create([{ id: 'c1', text: 'x', topics: ['a,b'] }]);
    expect(comma).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'value_error',
            loc: ['body', 'memories', 0, 'topics'],
            msg: "Value error, topics[0] contains a comma: 'a,b'. Commas are not allowed because they are used as delimiters in storage.",
            input: ['a,b'],
            ctx: { error: {} },
          },
        ],
      },
    });
    const missing = await create([{ text: 'no id' }]);
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      {
        type: 'missing',
        loc: ['body', 'memories', 0, 'id'],
        msg: 'Field required',
        input: { text: 'no id' },
      },
    ]);
    const empty = await create([
      { id: '', text: 'x' },
      { id: 'e2', text: '' },
    ]);
    expect((empty.body.detail as Json[]).map((detail) => detail.msg)).toEqual([
      'Value error, Memory at index 0 has empty id',
      'Value error, Memory at index 1 has empty text',
    ]);
    const badType = await create([{ id: 't1', text: 'x', memory_type: 'procedural' }]);
    expect(badType.status).toBe(422);
    expect((badType.body.detail as Json[])[0]?.loc).toEqual(['body', 'memories', 0, 'memory_type']);
    expect((await call('/v1/long-term-memory/', 'POST', {})).status).toBe(422);
    const invalidJson = await testServer().request('/v1/long-term-memory/', {
      method: 'POST',
      body: '{"memories": [',
    });
    expect(invalidJson.status).toBe(422);
    expect(((await invalidJson.json()) as { detail: Json[] }).detail[0]?.type).toBe('json_invalid');
  });

  it('refuses a body that is not UTF-8 with 400, as FastAPI does, and stores nothing', async () => {
    const prefix = Buffer.from('{"memories":[{"id":"latin-1","text":"caf');
    const body = Buffer.concat([prefix, Buffer.from([0xe9]), Buffer.from('"}]}')]);
    const response = await fetch(`${testServer().url}/v1/long-term-memory/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: 'There was an error parsing the body' });
    expect((await call('/v1/long-term-memory/latin-1')).status).toBe(404);
    // Real UTF-8 (with a byte-order mark, which Python's JSON decoder drops too) is stored intact.
    const utf8 = Buffer.from('\uFEFF{"memories":[{"id":"utf-8","text":"café ☕ 𝄞"}]}', 'utf8');
    const stored = await fetch(`${testServer().url}/v1/long-term-memory/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: utf8,
    });
    expect(stored.status).toBe(200);
    expect((await call('/v1/long-term-memory/utf-8')).body.text).toBe('café ☕ 𝄞');
  });

  it('answers 404 in AMS words, also for the shadowed GET /search', async () => {
    expect(await call('/v1/long-term-memory/nope')).toEqual({
      status: 404,
      body: { detail: 'Memory with ID nope not found' },
    });
    expect(await call('/v1/long-term-memory/search')).toEqual({
      status: 404,
      body: { detail: 'Memory with ID search not found' },
    });
    expect((await call('/v1/long-term-memory/', 'DELETE')).status).toBe(405);
  });
});

describe('PATCH and DELETE /v1/long-term-memory (AMS §4.10, §4.11)', () => {
  it('edits by writing a new version under the same id, readable as history', async () => {
    await create([{ id: 'edit-1', text: 'User lives in Oslo', namespace: 'edit', topics: ['home'] }]);
    const patched = await call('/v1/long-term-memory/edit-1', 'PATCH', {
      text: 'User lives in Bergen',
      topics: null,
      metadata: { ignored: true },
      id: 'ignored',
    });
    expect(patched.status).toBe(200);
    expect(Object.keys(patched.body).sort()).toEqual([...recordFields].sort());
    expect(patched.body).toMatchObject({
      id: 'edit-1',
      text: 'User lives in Bergen',
      topics: ['home'],
      namespace: 'edit',
    });
    expect((await call('/v1/long-term-memory/edit-1')).body).toEqual(patched.body);
    const found = await search({ text: 'Bergen', search_mode: 'keyword', namespace: { eq: 'edit' } });
    expect(ids(found)).toEqual(['edit-1']);
    expect(ids(await search({ text: 'Oslo', search_mode: 'keyword', namespace: { eq: 'edit' } }))).toEqual(
      [],
    );
    const again = await call('/v1/long-term-memory/edit-1', 'PATCH', { pinned: true });
    expect(again.body).toMatchObject({ id: 'edit-1', pinned: true, text: 'User lives in Bergen' });
    expect(ids(await search({ text: '', namespace: { eq: 'edit' } }))).toEqual(['edit-1']);

    const history = await call('/v1/long-term-memory/edit-1/history');
    expect(history.status).toBe(200);
    const versions = history.body.versions as Json[];
    expect(history.body.id).toBe('edit-1');
    expect(
      versions.map((version) => [version.version, version.text, version.pinned, version.written_by]),
    ).toEqual([
      [3, 'User lives in Bergen', true, 'api'],
      [2, 'User lives in Bergen', false, 'api'],
      [1, 'User lives in Oslo', false, 'api'],
    ]);
    expect(versions[0]?.valid_to).toBeNull();
    expect(versions[1]?.valid_to).toBe(versions[0]?.valid_from);
    expect(versions[2]?.valid_to).toBe(versions[1]?.valid_from);
    expect(Object.keys(versions[0] ?? {})).toEqual(
      expect.arrayContaining(['version', 'text', 'valid_from', 'valid_to', 'written_by', 'memory_hash']),
    );
    const limited = await call('/v1/long-term-memory/edit-1/history?limit=1');
    expect((limited.body.versions as Json[]).map((version) => version.version)).toEqual([3]);
    expect((await call('/v1/long-term-memory/edit-1/history?limit=0')).status).toBe(422);
    expect(await call('/v1/long-term-memory/nope/history')).toEqual({
      status: 404,
      body: { detail: 'Memory with ID nope not found' },
    });
  });

  it('answers 400 when no field is left and 404 for an unknown id', async () => {
    expect(await call('/v1/long-term-memory/edit-1', 'PATCH', { text: null, other: 1 })).toEqual({
      status: 400,
      body: { detail: 'No fields provided for update' },
    });
    expect(await call('/v1/long-term-memory/nope', 'PATCH', { text: 'x' })).toEqual({
      status: 404,
      body: { detail: 'Memory with ID nope not found' },
    });
    const comma = await call('/v1/long-term-memory/edit-1', 'PATCH', { entities: ['a,b'] });
    expect(comma.status).toBe(422);
  });

  it('deletes repeated memory_ids with every version, counting memories, never 404', async () => {
    await create([
      { id: 'del-1', text: 'delete me one', namespace: 'del' },
      { id: 'del-2', text: 'delete me two', namespace: 'del' },
      { id: 'del-3', text: 'keep me', namespace: 'del' },
    ]);
    await call('/v1/long-term-memory/del-1', 'PATCH', { text: 'delete me one, edited' });
    const deleted = await call(
      '/v1/long-term-memory?memory_ids=del-1&memory_ids=del-2&memory_ids=zzz&namespace=x',
      'DELETE',
    );
    expect(deleted).toEqual({ status: 200, body: { status: 'ok, deleted 2 memories' } });
    expect((await call('/v1/long-term-memory/del-1')).status).toBe(404);
    expect(ids(await search({ text: '', namespace: { eq: 'del' } }))).toEqual(['del-3']);
    expect(await call('/v1/long-term-memory', 'DELETE')).toEqual({
      status: 200,
      body: { status: 'ok, deleted 0 memories' },
    });
    // At most 1,000 ids a call (MAX_MEMORY_BATCH), as the library and MCP allow.
    const many = Array.from({ length: 1_001 }, (_, index) => `memory_ids=x${index}`).join('&');
    const refused = await call(`/v1/long-term-memory?${many}`, 'DELETE');
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('memory_ids');
  });
});

describe('compact and forget (AMS §4.12, §4.13)', () => {
  it('compacts exact duplicates in a scope, keeping the oldest', async () => {
    await create([{ id: 'cp-1', text: 'duplicate fact', namespace: 'compact' }]);
    await create([{ id: 'cp-2', text: 'another fact', namespace: 'compact' }]);
    // An edit may produce a copy of another memory (edits are not deduplicated).
    await call('/v1/long-term-memory/cp-2', 'PATCH', { text: 'duplicate fact' });
    const compacted = await call('/v1/long-term-memory/compact?namespace=compact', 'POST');
    expect(compacted).toEqual({ status: 200, body: { status: 'ok, 1 memories remaining after compaction' } });
    expect(ids(await search({ text: '', namespace: { eq: 'compact' } }))).toEqual(['cp-1']);
  });

  it('compacts around pins: a pinned copy is kept, never deleted, whatever its age', async () => {
    const body = (id: string, pinned: boolean) => ({
      id,
      text: 'pinned duplicate',
      namespace: 'compact-pins',
      pinned,
    });
    await call('/v1/long-term-memory/?deduplicate=false', 'POST', {
      memories: [body('cpp-old', false), body('cpp-pinned', true), body('cpp-new', false)],
      deduplicate: false,
    });
    expect(ids(await search({ text: '', namespace: { eq: 'compact-pins' } }))).toHaveLength(3);
    await call('/v1/long-term-memory/compact?namespace=compact-pins', 'POST');
    expect(ids(await search({ text: '', namespace: { eq: 'compact-pins' } }))).toEqual(['cpp-pinned']);
  });

  it('forgets by policy: a dry run by default, pins respected', async () => {
    const old = '2020-01-01T00:00:00Z';
    await create([
      { id: 'fg-old', text: 'old one', namespace: 'forget', created_at: old, last_accessed: old },
      {
        id: 'fg-pinned',
        text: 'old pinned',
        namespace: 'forget',
        created_at: old,
        last_accessed: old,
        pinned: true,
      },
      { id: 'fg-kept', text: 'old but kept', namespace: 'forget', created_at: old, last_accessed: old },
      { id: 'fg-new', text: 'new one', namespace: 'forget' },
    ]);
    const policy = { policy: { max_age_days: 30, unknown: 1 }, pinned_ids: ['fg-kept'] };
    const dry = await call('/v1/long-term-memory/forget?namespace=forget', 'POST', policy);
    expect(dry).toEqual({
      status: 200,
      body: { scanned: 4, deleted: 1, deleted_ids: ['fg-old'], dry_run: true },
    });
    expect((await call('/v1/long-term-memory/fg-old')).status).toBe(200);
    const real = await call(
      '/v1/long-term-memory/forget?namespace=forget&dry_run=false&limit=10',
      'POST',
      policy,
    );
    expect(real.body).toEqual({ scanned: 4, deleted: 1, deleted_ids: ['fg-old'], dry_run: false });
    expect((await call('/v1/long-term-memory/fg-old')).status).toBe(404);
    const budget = await call('/v1/long-term-memory/forget?namespace=forget&dry_run=no', 'POST', {
      policy: { budget: 1 },
    });
    expect(budget.body).toMatchObject({ scanned: 3, deleted: 1, deleted_ids: ['fg-kept'] });
    expect((await call('/v1/long-term-memory/forget', 'POST', { pinned_ids: [] })).status).toBe(422);
    expect((await call('/v1/long-term-memory/forget?dry_run=maybe', 'POST', { policy: {} })).status).toBe(
      422,
    );
  });
});
