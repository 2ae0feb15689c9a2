import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../src/core/tokens/token-counter.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer();
type Json = Record<string, unknown>;
interface PromptMessage {
  role: string;
  content: { type: string; text: string; annotations: null; _meta: null };
}

async function call(path: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) {
  const response = await testServer().request(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}
const prompt = async (body: unknown, query = '') => {
  const result = await call(`/v1/memory/prompt${query}`, 'POST', body);
  return { ...result, messages: (result.body.messages ?? []) as PromptMessage[] };
};
const texts = (messages: PromptMessage[]) => messages.map((message) => [message.role, message.content.text]);

describe('POST /v1/memory/prompt (AMS §4.14, §6)', () => {
  it('lays out summary, history (other roles as assistant), memories and the query as AMS does', async () => {
    await call('/v1/working-memory/p1', 'PUT', {
      namespace: 'prompt',
      user_id: 'ada',
      context: 'Ada planned a trip.',
      messages: [
        { role: 'user', content: 'Hello', created_at: '2025-06-01T10:00:00Z' },
        { role: 'assistant', content: 'Hi!', created_at: '2025-06-01T10:00:01Z' },
        { role: 'system', content: 'Be brief.', created_at: '2025-06-01T10:00:02Z' },
      ],
    });
    await call('/v1/long-term-memory/', 'POST', {
      memories: [
        { id: 'pm-tea', text: 'Ada likes oolong tea', user_id: 'ada', namespace: 'prompt' },
        { id: 'pm-city', text: 'Ada lives in Oslo with her tea set', user_id: 'ada', namespace: 'prompt' },
        { id: 'pm-other', text: 'Bo likes tea too', user_id: 'bo', namespace: 'prompt' },
      ],
    });
    const result = await prompt({
      query: 'What tea should I buy?',
      session: { session_id: 'p1', namespace: 'prompt', user_id: 'ada' },
      long_term_search: { text: 'ignored', search_mode: 'keyword', namespace: { eq: 'prompt' }, limit: 5 },
    });
    expect(result.status).toBe(200);
    expect(Object.keys(result.body).sort()).toEqual(['long_term_memories', 'messages']);
    for (const message of result.messages) {
      expect(Object.keys(message.content).sort()).toEqual(['_meta', 'annotations', 'text', 'type']);
      expect(message.content).toMatchObject({ type: 'text', annotations: null, _meta: null });
    }
    const memories = result.body.long_term_memories as Json[];
    // The session's user is added to the search: Bo's memory is not found.
    expect(memories.map((memory) => memory.id).sort()).toEqual(['pm-city', 'pm-tea']);
    for (const memory of memories) expect(memory).toMatchObject({ score_type: 'keyword' });
    const [first, second] = memories;
    expect(texts(result.messages)).toEqual([
      ['system', '## A summary of the conversation so far:\nAda planned a trip.'],
      ['user', 'Hello'],
      ['assistant', 'Hi!'],
      ['assistant', 'Be brief.'],
      [
        'system',
        `## Long term memories related to the user's query\n - ${first?.text} (ID: ${first?.id})\n- ${second?.text} (ID: ${second?.id})`,
      ],
      ['user', 'What tea should I buy?'],
    ]);
  });

  it('says so when nothing is found, and searches the query in the session namespace for `true`', async () => {
    const empty = await prompt({
      query: 'quantum physics',
      long_term_search: { namespace: { eq: 'nowhere' } },
    });
    expect(texts(empty.messages)).toEqual([
      ['system', "## Long term memories related to the user's query\n No relevant long-term memories found."],
      ['user', 'quantum physics'],
    ]);
    expect(empty.body.long_term_memories).toBeNull();
    await call('/v1/long-term-memory/', 'POST', {
      memories: [
        {
          id: 'pt-same-session',
          text: 'Ada tea from this session',
          user_id: 'ada',
          namespace: 'prompt',
          session_id: 'p1',
        },
        { id: 'pt-elsewhere', text: 'Ada tea in another namespace', user_id: 'ada', namespace: 'elsewhere' },
      ],
    });
    const automatic = await prompt({
      query: 'tea',
      session: { session_id: 'p1', namespace: 'prompt', user_id: 'ada' },
      long_term_search: true,
    });
    const ids = (automatic.body.long_term_memories as Json[]).map((memory) => memory.id).sort();
    expect(ids).toEqual(['pm-city', 'pm-tea']);
  });

  it('treats an unknown session as empty and finds a session by id alone when unique', async () => {
    const unknown = await prompt({ query: 'hi', session: { session_id: 'never-stored' } });
    expect(unknown.status).toBe(200);
    expect(texts(unknown.messages)).toEqual([['user', 'hi']]);
    expect(unknown.body.long_term_memories).toBeNull();
    const unique = await prompt({ query: 'hi', session: { session_id: 'p1' } });
    expect(unique.messages.map((message) => message.content.text)).toContain('Hello');
  });

  it('fits the whole prompt in the window, dropping the oldest turns first', async () => {
    const messages = Array.from({ length: 40 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `turn ${index}: ${'words of the conversation '.repeat(40)}`,
      created_at: new Date(Date.parse('2025-06-01T10:00:00Z') + index * 1_000).toISOString(),
    }));
    await call('/v1/working-memory/long', 'PUT', { namespace: 'prompt', messages });
    for (const window of ['4000', 1_000]) {
      const fitted = await prompt({
        query: 'tea?',
        session: {
          session_id: 'long',
          namespace: 'prompt',
          model_name: 'gpt-4o-mini',
          context_window_max: window,
        },
        long_term_search: { namespace: { eq: 'prompt' }, search_mode: 'hybrid' },
      });
      expect(fitted.status).toBe(200);
      const counter = await loadTokenCounter('o200k_base');
      const used =
        3 + fitted.messages.reduce((sum, message) => sum + counter.count(message.content.text) + 4, 0);
      expect(used).toBeLessThanOrEqual(Number(window));
      const history = fitted.messages.filter((message) => message.content.text.startsWith('turn '));
      expect(history.length).toBeGreaterThan(0);
      expect(history.length).toBeLessThan(40);
      expect(history.at(-1)?.content.text).toMatch(/^turn 39:/);
      expect(fitted.messages.at(-1)?.content.text).toBe('tea?');
    }
    const everything = await prompt({ query: 'tea?', session: { session_id: 'long', namespace: 'prompt' } });
    expect(everything.messages).toHaveLength(41);
  });

  it('says so when memories matched but none fit the window, instead of that none were found', async () => {
    await call('/v1/long-term-memory/', 'POST', {
      memories: [
        { id: 'pm-long', text: `Ada's tea order: ${'oolong and jasmine '.repeat(200)}`, namespace: 'fit' },
      ],
    });
    const search = { namespace: { eq: 'fit' }, search_mode: 'keyword' };
    const found = await call('/v1/long-term-memory/search', 'POST', { text: 'tea order', ...search });
    expect(found.body.total).toBe(1);
    const fitted = await prompt({
      query: 'tea order?',
      session: { session_id: 'none-fit', context_window_max: 300 },
      long_term_search: search,
    });
    expect(fitted.status).toBe(200);
    expect(fitted.body.long_term_memories).toBeNull();
    expect(texts(fitted.messages)).toContainEqual([
      'system',
      "## Long term memories related to the user's query\n Relevant long-term memories were found, but none fit in the context window.",
    ]);
  });

  it('searches a query longer than a search takes by its start and end, instead of refusing it', async () => {
    await call('/v1/long-term-memory/', 'POST', {
      memories: [
        { id: 'pm-seat', text: 'Ada prefers window seats on trains', user_id: 'ada', namespace: 'long' },
      ],
    });
    const pasted = 'Here is the travel document I was sent this morning. '.repeat(400);
    for (let tries = 0; tries < 50; tries++) {
      const found = await call('/v1/long-term-memory/search', 'POST', {
        text: 'window seats',
        namespace: { eq: 'long' },
      });
      if ((found.body.total as number) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const result = await prompt({
      query: `Which seat does Ada prefer on trains? ${pasted}`,
      long_term_search: { namespace: { eq: 'long' } },
    });
    expect(result.status).toBe(200);
    expect(JSON.stringify(result.body.long_term_memories)).toContain('pm-seat');
  });

  it('answers the AMS errors', async () => {
    expect(await prompt({ query: 'hi' })).toMatchObject({
      status: 400,
      body: { detail: 'Either session or long_term_search must be provided' },
    });
    expect((await prompt({ query: 'hi', long_term_search: false })).status).toBe(400);
    const missing = await prompt({ session: { session_id: 's' } });
    expect(missing.status).toBe(422);
    expect((missing.body.detail as Json[])[0]).toMatchObject({ type: 'missing', loc: ['body', 'query'] });
    const model = await prompt({ query: 'hi', session: { session_id: 's', model_name: 'gpt-9' } });
    expect(model.status).toBe(422);
    const threshold = await prompt({
      query: 'hi',
      long_term_search: { search_mode: 'keyword', distance_threshold: 1 },
    });
    expect(threshold.body).toEqual({
      detail: 'distance_threshold is only supported for semantic search mode',
    });
  });
});

describe('round-trip as the AMS clients send it (§9)', () => {
  const js = { 'user-agent': 'agent-memory-client-js/0.3.1', 'x-client-version': '0.3.1' };
  const python = { 'user-agent': 'agent-memory-client/0.14.1', 'x-client-version': '0.14.1' };

  it('serves the JS client: create, search, searchAll pages, get, edit, prompt, forget, delete', async () => {
    const created = await call(
      '/v1/long-term-memory/?namespace=js',
      'POST',
      {
        memories: [
          {
            id: '01JSCLIENT0000000000000001',
            text: 'JS user prefers dark mode',
            namespace: 'js',
            topics: ['ui'],
          },
          { id: '01JSCLIENT0000000000000002', text: 'JS user writes TypeScript', namespace: 'js' },
        ],
      },
      js,
    );
    expect(created.body).toEqual({ status: 'ok' });
    const found = await call(
      '/v1/long-term-memory/search',
      'POST',
      {
        text: 'dark mode',
        search_mode: 'semantic',
        limit: 10,
        offset: 0,
        namespace: { eq: 'js' },
        topics: { any: ['ui'] },
        created_at: { gte: new Date(Date.now() - 3_600_000).toISOString() },
        recency_boost: true,
        recency_semantic_weight: 0.8,
        recency_recency_weight: 0.2,
      },
      js,
    );
    expect((found.body.memories as Json[]).map((memory) => memory.id)).toEqual([
      '01JSCLIENT0000000000000001',
    ]);
    // searchAllLongTermMemories: pages of batchSize until a short page.
    const all: unknown[] = [];
    for (let offset = 0; ; offset += 1) {
      const page = await call(
        '/v1/long-term-memory/search',
        'POST',
        { text: '', search_mode: 'semantic', limit: 1, offset, namespace: { eq: 'js' } },
        js,
      );
      all.push(...(page.body.memories as unknown[]));
      if ((page.body.memories as unknown[]).length < 1) break;
    }
    expect(all).toHaveLength(2);
    const got = await call('/v1/long-term-memory/01JSCLIENT0000000000000002?namespace=js', 'GET', undefined, {
      ...js,
      'content-type': 'application/json',
    });
    expect(got.body.text).toBe('JS user writes TypeScript');
    const edited = await call(
      '/v1/long-term-memory/01JSCLIENT0000000000000002',
      'PATCH',
      { text: 'JS user writes Rust' },
      js,
    );
    expect(edited.body.text).toBe('JS user writes Rust');
    const built = await call(
      '/v1/memory/prompt',
      'POST',
      { query: 'What language?', long_term_search: { text: 'language', namespace: { eq: 'js' } } },
      js,
    );
    expect((built.body.messages as unknown[]).length).toBe(2);
    const forgot = await call(
      '/v1/long-term-memory/forget?namespace=js',
      'POST',
      { policy: { max_age_days: 365 } },
      js,
    );
    expect(forgot.body).toEqual({ scanned: 2, deleted: 0, deleted_ids: [], dry_run: true });
    const deleted = await call(
      '/v1/long-term-memory?memory_ids=01JSCLIENT0000000000000001&memory_ids=01JSCLIENT0000000000000002&namespace=js',
      'DELETE',
      undefined,
      { ...js, 'content-type': 'application/json' },
    );
    expect(deleted.body).toEqual({ status: 'ok, deleted 2 memories' });
  });

  it('serves the Python client: full dumps, deduplicate, optimize_query, string windows, unsupported operators', async () => {
    const now = new Date().toISOString().replace('Z', '000+00:00');
    const record = {
      id: '01PYCLIENT0000000000000001',
      text: 'Python user likes pandas',
      session_id: 'py-session',
      user_id: 'py-user',
      namespace: 'py',
      last_accessed: now,
      created_at: now,
      updated_at: now,
      pinned: false,
      access_count: 0,
      topics: ['data'],
      entities: ['pandas'],
      memory_hash: null,
      discrete_memory_extracted: 'f',
      memory_type: 'message',
      persisted_at: null,
      extracted_from: null,
      event_date: null,
      extraction_strategy: 'discrete',
      extraction_strategy_config: {},
      metadata: {},
    };
    expect(
      (await call('/v1/long-term-memory/', 'POST', { memories: [record], deduplicate: true }, python)).status,
    ).toBe(200);
    const found = await call(
      '/v1/long-term-memory/search?optimize_query=false',
      'POST',
      {
        text: 'pandas',
        limit: 10,
        offset: 0,
        search_mode: 'semantic',
        namespace: { eq: 'py' },
        user_id: { in_: ['py-user'] },
        entities: { none: ['numpy'] },
        memory_type: { not_in: ['episodic'] },
      },
      python,
    );
    const [hit] = found.body.memories as Json[];
    expect(hit).toMatchObject({ id: record.id, memory_type: 'message', discrete_memory_extracted: 'f' });
    expect(typeof hit?.dist).toBe('number');
    expect(found.body).toMatchObject({ total: 1, next_offset: null });
    const built = await call(
      '/v1/memory/prompt?optimize_query=false',
      'POST',
      {
        query: 'What does the user like?',
        session: {
          session_id: 'py-session',
          namespace: 'py',
          model_name: 'gpt-4o',
          context_window_max: '4000',
          user_id: 'py-user',
        },
        long_term_search: { limit: 10, offset: 0, search_mode: 'semantic', namespace: { eq: 'py' } },
      },
      python,
    );
    expect(built.status).toBe(200);
    expect((built.body.long_term_memories as Json[]).map((memory) => memory.id)).toEqual([record.id]);
    const forgot = await call(
      '/v1/long-term-memory/forget?namespace=py&dry_run=false',
      'POST',
      { policy: { budget: 0 }, pinned_ids: [record.id] },
      python,
    );
    expect(forgot.body).toEqual({ scanned: 1, deleted: 0, deleted_ids: [], dry_run: false });
  });
});
