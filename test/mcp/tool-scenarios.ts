import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { mcpCodeByCategory } from '../../src/core/errors.js';
import { describeAssemblyTools } from './assembly-tool-scenarios.js';
import { callFailing, callOk, callRejected } from './mcp-test-client.js';

/** Every tool the server lists, by exact name. */
export const toolNames = [
  'memory.query',
  'memory_prompt',
  'search_long_term_memory',
  'create_long_term_memories',
  'get_long_term_memory',
  'get_long_term_memory_history',
  'edit_long_term_memory',
  'delete_long_term_memories',
  'get_working_memory',
  'append_working_memory',
  'set_working_memory_data',
  'get_current_datetime',
  'context.assemble',
  'knowledge.search',
  'knowledge.upload',
  'procedures.list',
  'tasks.get',
];

interface AmsRecord {
  id: string;
  text: string;
  user_id: string | null;
  memory_type: string;
  topics: string[];
  supersedes: string | null;
  superseded_by: string | null;
  version: number;
  written_by: string;
}
interface SearchAnswer {
  memories: (AmsRecord & { dist: number; score: number | null; score_type: string | null })[];
  total: number;
  next_offset: number | null;
}
interface WorkingMemory {
  session_id: string;
  user_id: string | null;
  messages: { role: string; content: string; id: string }[];
  data: Record<string, unknown>;
}

/**
 * The same tool behaviour over any transport; `client()` is connected before the first test.
 * `sources`: whether the engram behind it assembles with its built-in memory sources.
 */
export function describeMemoryTools(client: () => Client, { sources = true } = {}): void {
  describeAssemblyTools(client, sources);
  describe('tools', () => {
    it('lists every tool with a JSON Schema of its arguments', async () => {
      const { tools } = await client().listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...toolNames].sort());
      const search = tools.find((tool) => tool.name === 'search_long_term_memory');
      expect(Object.keys(search?.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(['text', 'user_id', 'namespace', 'topics', 'created_at', 'limit', 'offset']),
      );
      const remove = tools.find((tool) => tool.name === 'delete_long_term_memories');
      expect(remove?.annotations?.destructiveHint).toBe(true);
      expect(tools.find((tool) => tool.name === 'memory.query')?.annotations?.readOnlyHint).toBe(true);
    });

    it('get_current_datetime answers the time in UTC', async () => {
      const before = Math.floor(Date.now() / 1_000);
      const now = await callOk<{ iso_utc: string; unix_ts: number }>(client(), 'get_current_datetime');
      expect(now.iso_utc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(now.unix_ts).toBeGreaterThanOrEqual(before);
      expect(Date.parse(now.iso_utc) / 1_000).toBe(now.unix_ts);
    });
  });

  describe('long-term memory tools', () => {
    it('create, get, search with filters, edit (a new version) and delete', async () => {
      const created = await callOk<{ status: string; memory_ids: string[] }>(
        client(),
        'create_long_term_memories',
        {
          memories: [
            { text: 'Grace prefers green tea in the morning', user_id: 'grace', topics: ['drinks'] },
            { text: 'Grace works on compilers', user_id: 'grace', topics: ['work'], memory_type: 'semantic' },
            { text: 'Linus prefers green tea too', user_id: 'linus', topics: ['drinks'] },
          ],
        },
      );
      expect(created.status).toBe('ok');
      expect(created.memory_ids).toHaveLength(3);
      const [teaId, workId] = created.memory_ids as [string, string, string];

      const got = await callOk<AmsRecord>(client(), 'get_long_term_memory', { memory_id: teaId });
      expect(got).toMatchObject({
        id: teaId,
        text: 'Grace prefers green tea in the morning',
        user_id: 'grace',
      });
      expect(got).toHaveProperty('created_at');
      expect(got).toHaveProperty('memory_type', 'semantic');

      const found = await callOk<SearchAnswer>(client(), 'search_long_term_memory', {
        text: 'green tea',
        user_id: { eq: 'grace' },
        optimize_query: false, // an AMS argument engram ignores
      });
      expect(found.memories[0]).toMatchObject({ id: teaId, score_type: 'hybrid' });
      expect(found.memories.every((memory) => memory.user_id === 'grace')).toBe(true);
      expect(found.memories[0]?.dist).toBeCloseTo(1 - (found.memories[0]?.score ?? 0));

      const byTopic = await callOk<SearchAnswer>(client(), 'search_long_term_memory', {
        text: '',
        topics: { any: ['work'] },
        user_id: { in_: ['grace'] },
        limit: 1,
      });
      expect(byTopic).toMatchObject({ total: 1, next_offset: null });
      expect(byTopic.memories.map((memory) => [memory.id, memory.score, memory.score_type])).toEqual([
        [workId, null, null],
      ]);
      const paged = await callOk<SearchAnswer>(client(), 'search_long_term_memory', {
        text: '',
        user_id: { eq: 'grace' },
        limit: 1,
      });
      expect(paged).toMatchObject({ total: 2, next_offset: 1 });

      const edited = await callOk<AmsRecord>(client(), 'edit_long_term_memory', {
        memory_id: teaId,
        text: 'Grace prefers oolong tea in the morning',
        topics: ['drinks', 'tea'],
        namespace: null,
      });
      expect(edited).toMatchObject({ id: teaId, version: 2, written_by: 'agent', topics: ['drinks', 'tea'] });
      expect(await callOk<AmsRecord>(client(), 'get_long_term_memory', { memory_id: teaId })).toEqual(edited);
      type History = {
        id: string;
        versions: { version: number; text: string }[];
        next_before_version: number | null;
      };
      const history = await callOk<History>(client(), 'get_long_term_memory_history', { memory_id: teaId });
      expect(history).toMatchObject({ id: teaId, next_before_version: null });
      expect(history.versions.map((version) => version.version)).toEqual([2, 1]);
      expect(history.versions[0]?.text).toBe('Grace prefers oolong tea in the morning');
      // Pages: the newest version, then the next page from below it.
      const newest = await callOk<History>(client(), 'get_long_term_memory_history', {
        memory_id: teaId,
        limit: 1,
      });
      expect(newest).toMatchObject({ versions: [{ version: 2 }], next_before_version: 2 });
      const older = await callOk<History>(client(), 'get_long_term_memory_history', {
        memory_id: teaId,
        before_version: 2,
      });
      expect(older).toMatchObject({ versions: [{ version: 1 }], next_before_version: null });

      const deleted = await callOk<{ status: string }>(client(), 'delete_long_term_memories', {
        memory_ids: [edited.id, 'no-such-memory'],
      });
      expect(deleted.status).toBe('ok, deleted 1 memories');
      const gone = await callFailing(client(), 'get_long_term_memory', { memory_id: edited.id });
      expect(gone).toMatchObject({
        code: 'not_found',
        category: 'not_found',
        mcpCode: mcpCodeByCategory.not_found,
      });
    });

    it('ends a search page at about 250,000 characters of memory text, next_offset after it', async () => {
      // 30 memories of 20,000 characters (the longest a memory may be): 12 fit in a page.
      const text = (index: number) =>
        `${`Long note ${index} on the archive policy:`.padEnd(19_999, ' archive')}.`;
      const memories = Array.from({ length: 30 }, (_, index) => ({
        text: text(index),
        user_id: 'long-notes',
      }));
      await callOk(client(), 'create_long_term_memories', { memories });
      type Page = { memories: { text: string }[]; total: number; next_offset: number | null };
      // A listing (no text) and a ranked search page alike.
      for (const query of ['', 'archive policy']) {
        const seen: string[] = [];
        const sizes: number[] = [];
        for (let offset: number | null = 0; offset !== null; ) {
          const page: Page = await callOk<Page>(client(), 'search_long_term_memory', {
            text: query,
            user_id: { eq: 'long-notes' },
            limit: 100,
            offset,
          });
          expect(page.total).toBe(30);
          sizes.push(page.memories.length);
          seen.push(...page.memories.map((memory) => memory.text));
          offset = page.next_offset;
        }
        expect(sizes).toEqual([12, 12, 6]);
        expect(seen.sort()).toEqual(memories.map((memory) => memory.text).sort());
      }
    });

    it('counts a memory’s metadata in the page bound, since it goes out with the text', async () => {
      // 8 short memories with 60,000 characters of metadata each: 4 fit in 250,000.
      const memories = Array.from({ length: 8 }, (_, index) => ({
        text: `Metadata note ${index} on the archive policy`,
        user_id: 'big-metadata',
        metadata: { blob: 'm'.repeat(60_000) },
      }));
      await callOk(client(), 'create_long_term_memories', { memories });
      type Page = { memories: unknown[]; next_offset: number | null };
      const sizes: number[] = [];
      for (let offset: number | null = 0; offset !== null; ) {
        const page: Page = await callOk<Page>(client(), 'search_long_term_memory', {
          text: 'archive policy',
          user_id: { eq: 'big-metadata' },
          limit: 100,
          offset,
        });
        sizes.push(page.memories.length);
        expect(JSON.stringify(page).length).toBeLessThan(300_000);
        offset = page.next_offset;
      }
      expect(sizes).toEqual([4, 4]);
    });

    it('reports a repeated memory as a duplicate instead of storing it twice', async () => {
      const memory = { text: 'Ken likes the C language', user_id: 'ken' };
      const first = await callOk<{ memory_ids: string[] }>(client(), 'create_long_term_memories', {
        memories: [memory],
      });
      const second = await callOk<{ memory_ids: string[]; duplicates: unknown[] }>(
        client(),
        'create_long_term_memories',
        { memories: [memory] },
      );
      expect(second).toMatchObject({
        memory_ids: [],
        duplicates: [{ existing_id: first.memory_ids[0] }],
      });
    });

    it('memory.query answers the ranked working set of one user', async () => {
      await callOk(client(), 'create_long_term_memories', {
        memories: [
          { text: 'Barbara takes her coffee black', user_id: 'barbara', salience: 0.9 },
          { text: 'Barbara visited Lisbon in May', user_id: 'barbara', memory_type: 'episodic' },
          { text: 'Edsger takes his coffee with milk', user_id: 'edsger' },
        ],
      });
      const set = await callOk<{
        items: { id: string; score: number; components: Record<string, unknown>; memory: AmsRecord }[];
        packs: unknown[];
        excluded: unknown[];
      }>(client(), 'memory.query', { query: 'how does she take her coffee?', user_id: 'barbara' });
      expect(set.items[0]?.memory.text).toBe('Barbara takes her coffee black');
      // Field names as on REST's working set: snake_case throughout.
      expect(Object.keys(set.items[0]?.components ?? {}).sort()).toEqual([
        'confidence',
        'decay',
        'decayed_salience',
        'salience',
        'similarity',
        'weights',
      ]);
      expect(set.items.every((item) => item.memory.user_id === 'barbara')).toBe(true);
      expect(set.packs.length).toBeGreaterThan(0);
      const episodic = await callOk<{ items: { memory: AmsRecord }[] }>(client(), 'memory.query', {
        query: 'coffee Lisbon',
        user_id: 'barbara',
        memory_types: ['episodic'],
      });
      expect(episodic.items.map((item) => item.memory.text)).toEqual(['Barbara visited Lisbon in May']);
      // Without memory_types: what assembly's semantic source sees (facts and turns, no episodes).
      const plain = await callOk<{ items: { memory: AmsRecord }[] }>(client(), 'memory.query', {
        query: 'coffee Lisbon',
        user_id: 'barbara',
      });
      expect(plain.items.map((item) => item.memory.memory_type)).not.toContain('episodic');
      // A session that does not exist is not found, never silently ignored.
      const missing = await callFailing(client(), 'memory.query', {
        query: 'coffee',
        user_id: 'barbara',
        session_id: 'no-such-session',
      });
      expect(missing.code).toBe('not_found');
    });

    it('answers errors as isError results: engram errors with their code, bad arguments from the schema', async () => {
      const missing = await callFailing(client(), 'get_long_term_memory', { memory_id: 'unknown-id' });
      expect(missing).toMatchObject({ code: 'not_found', mcpCode: -32004, details: { id: 'unknown-id' } });
      const editMissing = await callFailing(client(), 'edit_long_term_memory', {
        memory_id: 'unknown-id',
        text: 'x',
      });
      expect(editMissing.code).toBe('not_found');
      // A tag with a comma is refused, as REST refuses it (AMS stores tags comma-separated).
      expect(
        await callRejected(client(), 'create_long_term_memories', {
          memories: [{ text: 'Ada likes tea', topics: ['drinks,tea'] }],
        }),
      ).toMatch(/-32602/);
      const nothing = await callFailing(client(), 'edit_long_term_memory', { memory_id: 'unknown-id' });
      expect(nothing).toMatchObject({ code: 'validation_failed', mcpCode: mcpCodeByCategory.validation });
      const emptyText = await callFailing(client(), 'create_long_term_memories', {
        memories: [{ text: '   ' }],
      });
      expect(emptyText.code).toBe('validation_failed');

      expect(await callRejected(client(), 'get_long_term_memory', { memory_id: 42 })).toMatch(
        /-32602.*memory_id/,
      );
      expect(
        await callRejected(client(), 'search_long_term_memory', { topics: { startswith: 'a' } }),
      ).toMatch(/-32602/);
      expect(
        await callRejected(client(), 'search_long_term_memory', { created_at: { gt: 'yesterday' } }),
      ).toMatch(/ISO 8601/);
      expect(await callRejected(client(), 'delete_long_term_memories', { memory_ids: [] })).toMatch(/-32602/);
      expect(await callRejected(client(), 'no_such_tool', {})).toMatch(/not found/);
    });
  });

  describe('memory_prompt tool', () => {
    interface PromptAnswer {
      messages: { role: string; content: { type: string; text: string; annotations: null; _meta: null } }[];
      long_term_memories: (AmsRecord & { score_type: string })[] | null;
    }
    const texts = (answer: PromptAnswer) =>
      answer.messages.map((message) => [message.role, message.content.text]);

    it('builds the AMS prompt: session history, related long-term memories, then the query', async () => {
      const session = { session_id: 'prompt-1', user_id: 'margaret' };
      await callOk(client(), 'append_working_memory', {
        ...session,
        messages: [
          { role: 'user', content: 'I am planning the Apollo guidance review.' },
          { role: 'assistant', content: 'Happy to help with the review.' },
        ],
      });
      const { memory_ids } = await callOk<{ memory_ids: string[] }>(client(), 'create_long_term_memories', {
        memories: [
          { text: 'Margaret prefers reviews on Monday mornings', user_id: 'margaret' },
          { text: 'Hedy prefers reviews on Friday', user_id: 'hedy' },
        ],
      });
      const answer = await callOk<PromptAnswer>(client(), 'memory_prompt', {
        query: 'When should we schedule the review?',
        session_id: { eq: 'prompt-1' },
        user_id: { eq: 'margaret' },
        search_mode: 'keyword',
        limit: 5,
      });
      expect(answer.messages.every((message) => message.content.type === 'text')).toBe(true);
      expect(answer.messages[0]?.content).toEqual({
        type: 'text',
        text: 'I am planning the Apollo guidance review.',
        annotations: null,
        _meta: null,
      });
      expect(texts(answer)).toEqual([
        ['user', 'I am planning the Apollo guidance review.'],
        ['assistant', 'Happy to help with the review.'],
        [
          'system',
          `## Long term memories related to the user's query\n - Margaret prefers reviews on Monday mornings (ID: ${memory_ids[0]})`,
        ],
        ['user', 'When should we schedule the review?'],
      ]);
      expect(answer.long_term_memories?.map((memory) => [memory.id, memory.score_type])).toEqual([
        [memory_ids[0], 'keyword'],
      ]);

      // Session only: no long-term block; a bare session id works too.
      const sessionOnly = await callOk<PromptAnswer>(client(), 'memory_prompt', {
        query: 'Anything else?',
        session_id: 'prompt-1',
        include_long_term_search: false,
      });
      expect(texts(sessionOnly).map(([role]) => role)).toEqual(['user', 'assistant', 'user']);
      expect(sessionOnly.long_term_memories).toBeNull();

      // Long-term only, nothing found: AMS's sentence.
      const nothing = await callOk<PromptAnswer>(client(), 'memory_prompt', {
        query: 'reviews',
        user_id: { eq: 'nobody' },
      });
      expect(texts(nothing)).toEqual([
        [
          'system',
          "## Long term memories related to the user's query\n No relevant long-term memories found.",
        ],
        ['user', 'reviews'],
      ]);
    });

    it('fits a small context window and rejects impossible arguments', async () => {
      const long = Array.from({ length: 40 }, (_, index) => ({
        role: 'user',
        content: `Message ${index}: ${'the quick brown fox jumps over the lazy dog '.repeat(5)}`,
      }));
      await callOk(client(), 'append_working_memory', { session_id: 'prompt-2', messages: long });
      const fitted = await callOk<PromptAnswer>(client(), 'memory_prompt', {
        query: 'What was the last message?',
        session_id: { eq: 'prompt-2' },
        model_name: 'gpt-4o-mini',
        context_window_max: 400,
        include_long_term_search: false,
      });
      expect(fitted.messages.length).toBeGreaterThan(1);
      expect(fitted.messages.length).toBeLessThan(long.length + 1);
      expect(fitted.messages.at(-2)?.content.text).toBe(long.at(-1)?.content);

      const neither = await callFailing(client(), 'memory_prompt', {
        query: 'x',
        include_long_term_search: false,
      });
      expect(neither.code).toBe('validation_failed');
      expect(await callRejected(client(), 'memory_prompt', { query: 'x', model_name: 'gpt-0' })).toMatch(
        /-32602/,
      );
      expect(await callRejected(client(), 'memory_prompt', { query: '' })).toMatch(/-32602/);
      // session_id names one conversation: another operator is refused, never dropped.
      for (const session_id of [{ any: ['prompt-2'] }, { eq: 'prompt-2', ne: 'prompt-2' }]) {
        expect(await callRejected(client(), 'memory_prompt', { query: 'x', session_id })).toMatch(/-32602/);
      }
    });
  });

  describe('working memory tools', () => {
    it('append_working_memory appends and never wipes earlier messages or data', async () => {
      const session = { session_id: 'append-1', user_id: 'ada' };
      const first = await callOk<{ session: { version: number; message_count: number } }>(
        client(),
        'append_working_memory',
        { ...session, messages: [{ role: 'user', content: 'My order #1234 arrived damaged.' }] },
      );
      expect(first.session.message_count).toBe(1);
      await callOk(client(), 'set_working_memory_data', { ...session, data: { order: '1234' } });
      const second = await callOk<{ session: { message_count: number }; messages: { content: string }[] }>(
        client(),
        'append_working_memory',
        {
          ...session,
          messages: [
            { role: 'assistant', content: 'Sorry! Refund or replacement?' },
            { role: 'user', content: 'A replacement, please.', created_at: '2024-01-15T09:30:00Z' },
          ],
        },
      );
      expect(second.session.message_count).toBe(3);
      expect(second.messages.map((message) => message.content)).toEqual([
        'Sorry! Refund or replacement?',
        'A replacement, please.',
      ]);
      const memory = await callOk<WorkingMemory>(client(), 'get_working_memory', session);
      expect(memory.messages.map((message) => message.content)).toEqual([
        'My order #1234 arrived damaged.',
        'Sorry! Refund or replacement?',
        'A replacement, please.',
      ]);
      expect(memory.data).toEqual({ order: '1234' });
      expect(memory).toMatchObject({ older_messages_omitted: 0 });
      const recent = await callOk<WorkingMemory>(client(), 'get_working_memory', {
        ...session,
        recent_messages_limit: 1,
      });
      expect(recent.messages.map((message) => message.content)).toEqual(['A replacement, please.']);
    });

    it('answers at most 250,000 characters of messages, counting the ones left out', async () => {
      // 14 messages of 20,000 characters (~56,000 tokens: under the summary's threshold, so all 14
      // stay unsummarized): the newest 12 fit, 2 are left out of the answer (and stay stored).
      const content = (index: number) => `${`Pasted log ${index}:`.padEnd(19_999, ' line')}.`;
      const messages = Array.from({ length: 14 }, (_, index) => ({ role: 'user', content: content(index) }));
      // The append's own answer is bounded alike: its first 12 messages, and how many it left out.
      const appended = await callOk<{ messages: { content: string }[]; messages_omitted: number }>(
        client(),
        'append_working_memory',
        { session_id: 'long-log', messages },
      );
      expect(appended.messages.map((message) => message.content)).toEqual(
        Array.from({ length: 12 }, (_, index) => content(index)),
      );
      expect(appended.messages_omitted).toBe(2);
      type Answer = WorkingMemory & { older_messages_omitted: number };
      const memory = await callOk<Answer>(client(), 'get_working_memory', { session_id: 'long-log' });
      expect(memory.messages.map((message) => message.content)).toEqual(
        Array.from({ length: 12 }, (_, index) => content(2 + index)),
      );
      expect(memory.older_messages_omitted).toBe(2);
    });

    it('finds a session by its id alone when it is the only one with that id', async () => {
      await callOk(client(), 'append_working_memory', {
        session_id: 'only-id',
        user_id: 'alan',
        namespace: 'support',
        messages: [{ role: 'user', content: 'first' }],
      });
      await callOk(client(), 'append_working_memory', {
        session_id: 'only-id',
        messages: [{ role: 'user', content: 'second' }],
      });
      const memory = await callOk<WorkingMemory>(client(), 'get_working_memory', { session_id: 'only-id' });
      expect(memory.user_id).toBe('alan');
      expect(memory.messages.map((message) => message.content)).toEqual(['first', 'second']);
    });

    it('set_working_memory_data merge-patches data, creating the session when needed', async () => {
      const session = { session_id: 'data-1' };
      const created = await callOk<{ data: unknown; message_count: number }>(
        client(),
        'set_working_memory_data',
        { ...session, data: { cart: { items: 2, coupon: 'SPRING' }, locale: 'en' } },
      );
      expect(created).toMatchObject({ message_count: 0, data: { cart: { items: 2, coupon: 'SPRING' } } });
      const merged = await callOk<{ data: unknown }>(client(), 'set_working_memory_data', {
        ...session,
        data: { cart: { coupon: null, items: 3 }, step: 'checkout' },
      });
      expect(merged.data).toEqual({ cart: { items: 3 }, locale: 'en', step: 'checkout' });
    });

    it('reports unknown sessions and bad messages', async () => {
      const missing = await callFailing(client(), 'get_working_memory', { session_id: 'never-written' });
      expect(missing).toMatchObject({ code: 'not_found', mcpCode: mcpCodeByCategory.not_found });
      // Past the tool's argument schema, the engine's own check: content must not be blank.
      const blank = await callFailing(client(), 'append_working_memory', {
        session_id: 'bad-1',
        messages: [{ role: 'user', content: '   ' }],
      });
      expect(blank.code).toBe('validation_failed');
      expect(
        await callRejected(client(), 'append_working_memory', { session_id: 'bad-1', messages: [] }),
      ).toMatch(/-32602/);
      expect(
        await callRejected(client(), 'append_working_memory', {
          session_id: 'bad-1',
          messages: [{ role: 'robot', content: 'hi' }],
        }),
      ).toMatch(/-32602/);
      expect(
        await callRejected(client(), 'set_working_memory_data', { session_id: 'bad-1', data: [1] }),
      ).toMatch(/-32602/);
      // Nothing was written by the failed calls.
      expect((await callFailing(client(), 'get_working_memory', { session_id: 'bad-1' })).code).toBe(
        'not_found',
      );
    });
  });
}
