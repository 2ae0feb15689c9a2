import { describe, expect, it, vi } from 'vitest';
import type { ContextMessage } from './core/assembly/context-message.js';
import type { MemorySource } from './core/assembly/memory-source.js';
import type { AnthropicContext } from './core/assembly/to-anthropic-messages.js';
import type { OpenAIMessage } from './core/assembly/to-openai-messages.js';
import { ValidationError } from './core/errors.js';
import { createEngram } from './engram.js';
import type { EngramStore } from './stores/engram-store.js';
import { createMemoryStore } from './stores/memory/memory-store.js';

const session = { sessionId: 'chat-1', userId: 'ada', namespace: 'demo' };

async function engramWith(store: EngramStore = createMemoryStore(), sources: MemorySource[] = []) {
  return createEngram({ store, sources, sweepIntervalMs: 0 });
}

/** Wraps a store to count how many messages assembly reads. */
function countingStore(store: EngramStore): EngramStore & { messagesRead: number } {
  const wrapper = Object.create(store) as EngramStore & { messagesRead: number };
  wrapper.messagesRead = 0;
  wrapper.readMessages = async (key, query) => {
    const messages = await store.readMessages(key, query);
    wrapper.messagesRead += messages.length;
    return messages;
  };
  return wrapper;
}

describe('createEngram', () => {
  it('appends messages, counts tokens once, and assembles them into the context', async () => {
    const engram = await engramWith();
    const { messages } = await engram.sessions.append(session, [
      { role: 'user', content: 'My name is Ada and I love sailing.' },
      { role: 'assistant', content: 'Nice to meet you, Ada!' },
    ]);
    expect(messages[0]?.tokenCount).toBeGreaterThan(5);
    expect(messages[0]?.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);

    const result = await engram.assemble({ session, message: 'What do I love?' });
    const openai = result.messages as OpenAIMessage[];
    expect(openai.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(openai.at(-1)?.content).toBe('What do I love?');
    expect(result.trace.history.kept).toBe(2);
    expect(result.trace.budget.used).toBeLessThanOrEqual(result.trace.budget.available);
    await engram.close();
  });

  it('put returns exactly the messages a later get reads, seqs included, also on a replace', async () => {
    const engram = await engramWith();
    await engram.sessions.put(session, { messages: [{ role: 'user', content: 'first' }] });
    const replaced = await engram.sessions.put(session, {
      messages: [
        { role: 'user', content: 'second' },
        { role: 'assistant', content: 'third' },
      ],
    });
    const read = await engram.sessions.get(session);
    expect(replaced.messages).toEqual(read?.messages);
    expect(replaced.messages.map((message) => message.seq)).toEqual([2, 3]);
    await engram.close();
  });

  it('reads only the newest messages that can fit, not the whole session', async () => {
    const store = countingStore(createMemoryStore());
    const engram = await engramWith(store);
    const batch = Array.from({ length: 5_000 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `message number ${index} with a few words of padding`,
    }));
    await engram.sessions.append(session, batch);
    store.messagesRead = 0;
    const result = await engram.assemble({
      session,
      message: 'hello',
      agent: { memory: { maxWorkingMemoryTokens: 1_000, reservedOutputTokens: 100 } },
    });
    expect(result.trace.history.kept).toBeGreaterThan(10);
    expect(store.messagesRead).toBeLessThan(300);
    expect(result.trace.history.olderNotRead).toBe(5_000 - result.trace.history.candidates);
    await engram.close();
  });

  it('formats for Anthropic with the system prompt separated', async () => {
    const engram = await engramWith();
    await engram.sessions.append(session, [{ role: 'user', content: 'Hi' }]);
    const result = await engram.assemble({
      session,
      message: 'Hello again',
      format: 'anthropic',
      agent: { systemPrompt: 'Be kind.', memory: { model: 'claude-sonnet-4-5' } },
    });
    expect(result.messages).toEqual({
      system: 'Be kind.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hi' },
            { type: 'text', text: 'Hello again' },
          ],
        },
      ],
    });
    await engram.close();
  });

  it('degrades when a source fails or times out, and reports the trace', async () => {
    const traces: unknown[] = [];
    const sources: MemorySource[] = [
      {
        name: 'semantic',
        section: 'knowledge',
        retrieve: async (request) => [
          { id: 'k1', text: `About ${request.query}`, score: 0.9, source: 'faq.md' },
        ],
      },
      { name: 'episodic', section: 'episodes', timeoutMs: 10, retrieve: () => new Promise(() => {}) },
      {
        name: 'procedural',
        section: 'procedure',
        retrieve: async () => {
          throw new Error('boom');
        },
      },
    ];
    const engram = await createEngram({
      store: createMemoryStore(),
      sources,
      defaultSources: false,
      sweepIntervalMs: 0,
      onTrace: (trace) => traces.push(trace),
    });
    const result = await engram.assemble({ session, message: 'refunds' });
    expect(result.context.map((message) => message.section)).toEqual(['system', 'knowledge', 'current']);
    expect(result.context[1]?.content).toContain('About refunds (Source: faq.md)');
    expect(result.trace.degraded).toBe(true);
    expect(result.trace.sources.map((report) => report.status)).toEqual(['ok', 'timeout', 'error']);
    expect(traces).toHaveLength(1);
    await engram.close();
  });

  it('consults per-call sources instead of the instance ones when given', async () => {
    const instance: MemorySource = {
      name: 'instance',
      section: 'knowledge',
      retrieve: async () => [{ id: 'i1', text: 'from the instance', score: 1 }],
    };
    const engram = await createEngram({
      store: createMemoryStore(),
      sources: [instance],
      defaultSources: false,
      sweepIntervalMs: 0,
    });
    const perCall: MemorySource = {
      name: 'per-call',
      section: 'knowledge',
      retrieve: async () => [{ id: 'c1', text: 'from this call', score: 1 }],
    };
    const own = await engram.assemble({ session, message: 'hi', sources: [perCall] });
    expect(own.context[1]?.content).toContain('from this call');
    expect(own.context[1]?.content).not.toContain('from the instance');
    expect(own.trace.sources.map((report) => report.name)).toEqual(['per-call']);
    const none = await engram.assemble({ session, message: 'hi', sources: [] });
    expect(none.context.map((message) => message.section)).toEqual(['system', 'current']);
    const usual = await engram.assemble({ session, message: 'hi' });
    expect(usual.context[1]?.content).toContain('from the instance');
    await engram.close();
  });

  it('assembles all six sections from long-term memory with the built-in sources', async () => {
    const engram = await engramWith();
    const user = { ...session, userId: 'ada' };
    await engram.knowledge.ingest('default', {
      agentId: 'support',
      name: 'Returns Policy.md',
      content: '# Returns\nDamaged items can be returned within 30 days for a full refund or a replacement.',
    });
    await engram.memories.create('default', [
      { text: 'Ada prefers replacements over refunds.', userId: 'ada', namespace: 'demo', salience: 0.9 },
    ]);
    await engram.episodes.record('default', {
      userId: 'ada',
      summary: 'Ada reported a damaged blender and received a replacement.',
      endedAt: '2026-03-02T10:00:00Z',
    });
    const procedure = await engram.procedures.create('default', {
      agentId: 'support',
      name: 'Damaged item',
      triggers: ['damaged|broken'],
      steps: ['Apologise', 'Ask for a photo of the damage', 'Offer a replacement or refund'],
    });
    await engram.procedures.approve('default', procedure.id);
    await engram.sessions.append(user, [
      { role: 'user', content: 'Hi, I have a problem with my order.' },
      { role: 'assistant', content: 'Sorry to hear that. What happened?' },
    ]);

    const { context, trace } = await engram.assemble({
      session: user,
      message: 'My new kettle arrived damaged, can I return it for a replacement?',
      agent: { id: 'support', systemPrompt: 'You are Acme support.' },
    });
    expect([...new Set(context.map((message) => message.section))]).toEqual([
      'system',
      'procedure',
      'knowledge',
      'episodes',
      'history',
      'current',
    ]);
    const text = (section: string) => context.find((message) => message.section === section)?.content ?? '';
    expect(text('procedure')).toContain('2. Ask for a photo of the damage');
    expect(text('knowledge')).toContain('(Source: Returns Policy.md)');
    expect(text('knowledge')).toContain('Ada prefers replacements over refunds.');
    expect(text('episodes')).toContain('[2026-03-02] Ada reported a damaged blender');
    expect(trace.degraded).toBe(false);
    expect(trace.sources.map((report) => report.name)).toEqual([
      'procedural',
      'semantic',
      'knowledge',
      'episodic',
    ]);
    await engram.close();
  });

  it("never shows another user's memories or episodes", async () => {
    const engram = await engramWith();
    // Bob's memory shares the session's namespace: only the user filter keeps it out.
    const { inserted } = await engram.memories.create('default', [
      { text: 'Bob is allergic to cats.', userId: 'bob', namespace: session.namespace, salience: 1 },
      { text: 'Ada is allergic to dust.', userId: 'ada', namespace: session.namespace, salience: 1 },
    ]);
    await engram.episodes.record('default', { userId: 'bob', summary: 'Bob asked about cat allergies.' });
    const { context, trace } = await engram.assemble({
      session: { ...session, userId: 'ada' },
      message: 'cat allergies?',
    });
    // Ada's own memory, in the same namespace, is found: the sources did run for her.
    expect(context.map((message) => message.section)).toEqual(['system', 'knowledge', 'current']);
    const shown = context.map((message) => message.content).join('\n');
    expect(shown).toContain('Ada is allergic to dust.');
    expect(shown).not.toContain('Bob');
    // Not even offered and left out: Ada's memory is the only one the knowledge section saw.
    const knowledge = trace.sections.find((section) => section.name === 'knowledge')?.items ?? [];
    expect(knowledge.map((item) => item.id)).toEqual([inserted[1]?.id]);
    await engram.close();
  });

  it('fills the knowledge section with every relevant memory that fits its cap, not a handful', async () => {
    const engram = await engramWith();
    const user = { ...session, userId: 'ada' };
    const boats = [
      'a dinghy',
      'a catamaran',
      'a ketch',
      'a sloop',
      'a yawl',
      'a schooner',
      'a cutter',
      'a kayak',
    ];
    await engram.memories.create(
      'default',
      boats.map((boat) => ({
        text: `Ada went sailing in ${boat} last summer.`,
        userId: 'ada',
        namespace: 'demo',
      })),
    );
    const knowledge = async (memory: Record<string, unknown>) => {
      const { trace } = await engram.assemble({ session: user, message: 'sailing?', agent: { memory } });
      return trace.sections.find((section) => section.name === 'knowledge')?.items ?? [];
    };
    const placed = await knowledge({});
    expect(placed.filter((item) => item.included)).toHaveLength(boats.length);
    // The token cap still decides: a small one cuts the lowest-ranked memories.
    const capped = await knowledge({ sectionCaps: { knowledge: 60 } });
    expect(capped.filter((item) => item.included).length).toBeLessThan(boats.length);
    expect(capped.filter((item) => item.reason === 'section_cap').length).toBeGreaterThan(0);
    await engram.close();
  });

  it('keeps per-session pins and removals, and assembly honours them', async () => {
    const engram = await engramWith();
    const user = { ...session, userId: 'ada' };
    const { inserted } = await engram.memories.create('default', [
      { text: 'Ada loves sailing on weekends.', userId: 'ada', namespace: 'demo' },
      { text: 'Ada keeps her sailing boat in Cascais.', userId: 'ada', namespace: 'demo' },
      { text: 'Ada goes sailing with her sister.', userId: 'ada', namespace: 'demo' },
      { text: 'Ada is allergic to peanuts.', userId: 'ada', namespace: 'demo' },
    ]);
    const [, boat, , allergy] = inserted.map((memory) => memory.id);
    await engram.sessions.append(user, [{ role: 'user', content: 'hello' }]);
    const knowledgeIds = async () => {
      const { trace } = await engram.assemble({
        session: user,
        message: 'sailing this weekend with my boat?',
        agent: { memory: { semanticTopK: 2 } },
      });
      const items = trace.sections.find((section) => section.name === 'knowledge')?.items ?? [];
      return items.filter((item) => item.included).map((item) => item.id);
    };
    expect(await knowledgeIds()).toContain(boat);
    expect(await knowledgeIds()).not.toContain(allergy);

    // Concurrent curation: every change lands.
    await Promise.all([
      engram.sessions.updateWorkingSet(user, { pin: [allergy ?? ''] }),
      engram.sessions.updateWorkingSet(user, { remove: [boat ?? ''] }),
    ]);
    expect((await engram.sessions.get(user))?.workingSet).toEqual({ pinned: [allergy], removed: [boat] });
    const curated = await knowledgeIds();
    expect(curated).toContain(allergy);
    expect(curated).not.toContain(boat);

    await engram.sessions.updateWorkingSet(user, { restore: [boat ?? ''], unpin: [allergy ?? ''] });
    expect(await knowledgeIds()).toContain(boat);
    expect(await knowledgeIds()).not.toContain(allergy);
    await expect(engram.sessions.updateWorkingSet({ sessionId: 'missing' }, { pin: ['x'] })).rejects.toThrow(
      /not found/,
    );
    await engram.close();
  });

  it('sweeps expired sessions in the background', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const clock = () => now;
    const engram = await createEngram({ store: createMemoryStore({ clock }), clock, sweepIntervalMs: 5 });
    await engram.sessions.put(session, { ttlSeconds: 60 });
    now = new Date(now.getTime() + 61_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await engram.store.deleteExpired()).toBe(0);
    expect(await engram.sessions.get(session)).toBeNull();
    await engram.close();
  });
});

describe('pins reach every section they may', () => {
  it('a pinned episode of the user is placed though the query does not find it; another user’s is not', async () => {
    const engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    const ref = { sessionId: 'pins', userId: 'ada' };
    await engram.sessions.append(ref, [{ role: 'user', content: 'hi' }]);
    for (const topic of ['trains to Lyon', 'booking trains', 'train delays', 'train refunds'])
      await engram.episodes.record('default', { userId: 'ada', summary: `We talked about ${topic}.` });
    const garden = await engram.episodes.record('default', {
      userId: 'ada',
      summary: 'We talked about tomatoes.',
    });
    const other = await engram.episodes.record('default', { userId: 'bob', summary: 'Bob grows roses.' });
    await engram.sessions.updateWorkingSet(ref, { pin: [garden.id, other.id] });
    const { context, trace } = await engram.assemble({
      session: ref,
      message: 'trains trains trains',
      format: 'neutral',
      agent: { memory: { episodicTopK: 3 } },
    });
    const text = context.map((message) => message.content).join('\n');
    expect(text).toContain('tomatoes');
    expect(text).not.toContain('roses');
    const episodes = trace.sections.find((section) => section.name === 'episodes');
    expect(episodes?.items.find((item) => item.id === garden.id)).toMatchObject({ included: true });
    await engram.close();
  });
});

describe('assembly keeps the turn whole', () => {
  it('places the current message as sent, indentation and trailing newline included', async () => {
    const engram = await engramWith();
    const code = '    def f():\n        return 1\n';
    const { context } = await engram.assemble({ session, message: code, format: 'neutral' });
    expect(context.at(-1)?.content).toBe(code);
    await engram.close();
  });

  it('a throwing onTrace observer is reported, and the turn is still answered', async () => {
    const reported: unknown[] = [];
    const engram = await createEngram({
      store: createMemoryStore(),
      sweepIntervalMs: 0,
      onTrace: () => {
        throw new Error('observer failed');
      },
      onBackgroundError: (error) => reported.push(error),
    });
    const { context } = await engram.assemble({ session, message: 'hello', format: 'neutral' });
    expect(context.at(-1)?.content).toBe('hello');
    expect(reported.map((error) => (error as Error).message)).toEqual(['observer failed']);
    await engram.close();
  });
});

describe('assemble’s result is typed by its format', () => {
  it('messages is OpenAI messages by default, the Anthropic shape or neutral messages when asked', async () => {
    const engram = await engramWith();
    // These assignments compile only if `messages` is typed by `format` (the typecheck is the test).
    const openai: OpenAIMessage[] = (await engram.assemble({ session, message: 'hi' })).messages;
    const anthropic: AnthropicContext = (
      await engram.assemble({ session, message: 'hi', format: 'anthropic' })
    ).messages;
    const neutral: ContextMessage[] = (await engram.assemble({ session, message: 'hi', format: 'neutral' }))
      .messages;
    expect(openai.at(-1)).toMatchObject({ role: 'user', content: 'hi' });
    expect(typeof anthropic.system).toBe('string');
    expect(neutral.at(-1)).toMatchObject({ section: 'current' });
    await engram.close();
  });
});

describe('background errors', () => {
  it('a failed re-embedding after a model change goes to onBackgroundError', async () => {
    const store = createMemoryStore();
    const first = await createEngram({ store, sweepIntervalMs: 0 });
    await first.memories.create('default', [{ text: 'A stored fact' }]);
    const reported: unknown[] = [];
    const second = await createEngram({
      store,
      sweepIntervalMs: 0,
      onBackgroundError: (error) => reported.push(error),
      embedder: {
        model: 'other:1',
        dimensions: 2,
        embed: async (texts) => {
          if (texts.includes('A stored fact')) throw new Error('embedder down');
          return texts.map(() => Float32Array.from([1, 0]));
        },
      },
    });
    await second.memories.search('default', { text: 'fact' });
    await vi.waitFor(() =>
      expect(reported.map((error) => (error as Error).message)).toEqual(['embedder down']),
    );
    await second.close();
    await first.close();
  });
});

describe('createEngram settings', () => {
  it.each([
    [
      'jobs concurrency 0 (its loop would wait on nothing and close() never return)',
      { jobs: { concurrency: 0 } },
      /jobs settings: concurrency/,
    ],
    ['a NaN poll interval', { jobs: { minPollMs: Number.NaN } }, /jobs settings: minPollMs/],
    [
      'a write-path share over 1',
      { writePath: { summaryThreshold: 5 } },
      /writePath settings: summaryThreshold/,
    ],
    [
      'a NaN sweep interval (a timer firing every millisecond)',
      { sweepIntervalMs: Number.NaN },
      /sweepIntervalMs/,
    ],
  ])('refuses %s with a ValidationError naming the setting', async (_name, settings, pattern) => {
    const error = await createEngram({ store: createMemoryStore(), ...settings }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(pattern);
  });
});
