import { describe, expect, it } from 'vitest';
import type { ContextTrace } from '../../core/assembly/context-trace.js';
import { StoreError } from '../../core/errors.js';
import { createEngram } from '../../engram.js';
import type { EngramStore } from '../../stores/engram-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createTraceLog, TRACES_COLLECTION, toStoredTrace } from './trace-log.js';

const SECRET = 'zanzibarquokka';
const session = { sessionId: 'chat-1', namespace: 'demo', userId: 'ada', tenantId: 't1' };

function traceWith(overrides: Partial<ContextTrace> = {}): ContextTrace {
  return {
    model: 'gpt-4o',
    encoding: 'o200k_base',
    budget: { maxWorkingMemoryTokens: 8_000, reservedOutputTokens: 1_000, available: 7_000, used: 20 },
    sections: [
      {
        name: 'current',
        tokens: 10,
        cap: null,
        items: [{ id: 'current', kind: 'current', included: true, reason: 'included', tokens: 10 }],
      },
    ],
    history: { strategy: 'drop-oldest', candidates: 0, kept: 0, olderNotRead: 0, recounted: 0 },
    sources: [],
    degraded: false,
    durationMs: 1.5,
    ...overrides,
  };
}

/** Every stored trace document of a tenant, serialized. */
async function storedTraces(store: EngramStore, tenantId: string): Promise<string> {
  const { documents } = await store.documents.listDocuments(tenantId, TRACES_COLLECTION, {
    limit: 10_000,
    offset: 0,
  });
  return JSON.stringify(documents);
}

describe('createTraceLog', () => {
  it('lists a session’s traces newest first and keeps only the last `retention`', async () => {
    const store = createMemoryStore();
    const log = createTraceLog(store.documents, () => new Date(), { retention: 3 });
    const ids = [];
    for (let turn = 0; turn < 5; turn++) {
      ids.push((await log.record(session, 'support', traceWith({ durationMs: turn })))?.id);
    }
    const { traces, total } = await log.list(session);
    expect(total).toBe(3);
    expect(traces.map((trace) => trace.id)).toEqual(ids.slice(2).reverse());
    expect(traces[0]).toMatchObject({
      sessionId: 'chat-1',
      namespace: 'demo',
      userId: 'ada',
      agentId: 'support',
    });
    expect(traces[0]?.trace.durationMs).toBe(4);
    expect((await log.list(session, { limit: 1 })).traces).toHaveLength(1);
  });

  it('keeps sessions and tenants apart: same id, other user or tenant, other log', async () => {
    const store = createMemoryStore();
    const log = createTraceLog(store.documents, () => new Date());
    await log.record(session, 'a', traceWith());
    expect((await log.list({ ...session, userId: 'bob' })).total).toBe(0);
    expect((await log.list({ ...session, namespace: null })).total).toBe(0);
    expect((await log.list({ ...session, tenantId: 't2' })).total).toBe(0);
    expect((await log.list(session)).total).toBe(1);
  });

  it('writes traces off the turn, in one write per batch, only once flushed', async () => {
    const store = createMemoryStore();
    const writes: string[] = [];
    const documents = Object.create(store.documents) as EngramStore['documents'];
    documents.writeDocuments = (tenantId, collection, changes) => {
      writes.push(`${tenantId}:${changes.put.length}+${changes.delete.length}-`);
      return store.documents.writeDocuments?.(tenantId, collection, changes) ?? Promise.resolve();
    };
    documents.putDocument = () => Promise.reject(new Error('one document at a time'));
    const log = createTraceLog(documents, () => new Date(), { retention: 3, delayMs: 60_000 });
    const ids = [];
    for (let turn = 0; turn < 2; turn++) ids.push((await log.record(session, 'a', traceWith()))?.id);
    await log.record({ ...session, tenantId: 't2' }, 'a', traceWith());
    expect(await storedTraces(store, 't1')).toBe('[]');
    await log.flush();
    expect(writes).toEqual(['t1:2+0-', 't2:1+0-']);
    // A later batch: the newest 3 stay, the oldest goes in the same write.
    for (let turn = 0; turn < 2; turn++) ids.push((await log.record(session, 'a', traceWith()))?.id);
    await log.flush();
    expect(writes.at(-1)).toBe('t1:2+1-');
    expect((await log.list(session)).traces.map((trace) => trace.id)).toEqual(ids.slice(1).reverse());
  });

  it('holds at most `queueCapacity` traces; close writes them and records no more', async () => {
    const store = createMemoryStore();
    const log = createTraceLog(store.documents, () => new Date(), { queueCapacity: 2, delayMs: 60_000 });
    expect(await log.record(session, 'a', traceWith())).not.toBeNull();
    expect(await log.record(session, 'a', traceWith())).not.toBeNull();
    expect(await log.record(session, 'a', traceWith())).toBeNull();
    await log.close();
    expect(await log.record(session, 'a', traceWith())).toBeNull();
    expect(JSON.parse(await storedTraces(store, 't1'))).toHaveLength(2);
  });

  it('records nothing with retention 0', async () => {
    const store = createMemoryStore();
    const log = createTraceLog(store.documents, () => new Date(), { retention: 0 });
    expect(await log.record(session, 'a', traceWith())).toBeNull();
    expect((await log.list(session)).total).toBe(0);
  });

  it('drops source error texts and any field it does not know', () => {
    const trace = traceWith({
      sources: [
        {
          name: 'semantic',
          section: 'knowledge',
          status: 'error',
          durationMs: 2,
          itemCount: 0,
          error: SECRET,
        },
      ],
    });
    const withExtra = { ...trace, text: SECRET, sections: [{ ...trace.sections[0], content: SECRET }] };
    const stored = toStoredTrace(withExtra as unknown as ContextTrace);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(stored.sources[0]).toEqual({
      name: 'semantic',
      section: 'knowledge',
      status: 'error',
      durationMs: 2,
      itemCount: 0,
    });
  });

  it('keeps score components as finite numbers under identifier names, at most 16', () => {
    const components: Record<string, unknown> = {
      similarity: 0.8,
      decayed_salience: 0.4,
      [SECRET.toUpperCase()]: 1,
      [`note ${SECRET}`]: 2,
      leak: SECRET,
      nan: Number.NaN,
      infinite: Number.POSITIVE_INFINITY,
    };
    for (let index = 0; index < 30; index++) components[`part_${index}`] = index;
    const item = { id: 'm1', kind: 'memory', included: true, reason: 'included', tokens: 5, score: 0.7 };
    const trace = traceWith({
      sections: [{ name: 'knowledge', tokens: 5, cap: null, items: [{ ...item, components }] }],
    } as unknown as Partial<ContextTrace>);
    const stored = toStoredTrace(trace).sections[0]?.items[0]?.components ?? {};
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(JSON.stringify(stored).toLowerCase()).not.toContain(SECRET);
    expect(stored).toMatchObject({ similarity: 0.8, decayed_salience: 0.4, part_0: 0 });
    expect(Object.keys(stored)).toHaveLength(16);
    expect(Object.values(stored).every(Number.isFinite)).toBe(true);
  });
});

describe('engram.assemble and the trace log', () => {
  it('stores every turn’s trace with no message, memory or knowledge content at rest', async () => {
    const store = createMemoryStore();
    const engram = await createEngram({ store, sweepIntervalMs: 0 });
    const ref = { sessionId: 'chat-9', namespace: 'demo', userId: 'ada', tenantId: 't1' };
    await engram.sessions.append(ref, [
      { role: 'user', content: `My password hint is ${SECRET}.` },
      { role: 'assistant', content: `Noted: ${SECRET}.` },
    ]);
    await engram.memories.create('t1', [
      { text: `Ada's favourite word is ${SECRET}.`, userId: 'ada', namespace: 'demo', salience: 0.9 },
    ]);
    await engram.knowledge.ingest('t1', {
      agentId: 'support',
      name: 'Words.md',
      content: `# Words\nThe word ${SECRET} is secret.`,
    });
    await engram.episodes.record('t1', { userId: 'ada', summary: `Ada talked about ${SECRET}.` });
    const agent = { id: 'support', systemPrompt: `Never say ${SECRET}.` };
    const result = await engram.assemble({ session: ref, agent, message: `What is ${SECRET}?` });
    const context = JSON.stringify(result.context);
    // The context itself carries the secret from every section, so the check below means something.
    for (const section of ['system', 'knowledge', 'episodes', 'history', 'current']) {
      expect(result.context.find((message) => message.section === section)?.content).toContain(SECRET);
    }
    expect(context).toContain(SECRET);
    const { traces } = await engram.traces.list(ref);
    expect(traces).toHaveLength(1);
    expect(traces[0]?.agentId).toBe('support');
    expect(traces[0]?.trace.sections.map((section) => section.name)).toEqual(
      result.trace.sections.map((section) => section.name),
    );
    expect(await storedTraces(store, 't1')).not.toContain(SECRET);
    expect(await storedTraces(store, 't1')).toContain(traces[0]?.id);
    await engram.close();
  });

  it('answers the turn when the trace write fails, and reports the failure', async () => {
    const store = createMemoryStore();
    const failing = Object.create(store) as EngramStore;
    Object.defineProperty(failing, 'documents', {
      value: {
        ...store.documents,
        putDocument: async () => {
          throw new StoreError('disk full');
        },
        writeDocuments: async () => {
          throw new StoreError('disk full');
        },
      },
    });
    const errors: unknown[] = [];
    const engram = await createEngram({
      store: failing,
      sweepIntervalMs: 0,
      defaultSources: false,
      onBackgroundError: (error) => errors.push(error),
    });
    const result = await engram.assemble({ session, message: 'hello' });
    expect(result.messages).not.toHaveLength(0);
    await engram.traces.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StoreError);
    await engram.close();
  });
});
