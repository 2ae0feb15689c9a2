import { beforeAll, describe, expect, it } from 'vitest';
import { loadTokenCounter, type TokenCounter } from '../../core/tokens/token-counter.js';
import type { EmbeddingProvider } from '../../providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../../providers/embeddings/static-embedding-provider.js';
import { createMemoryRecordStore } from '../../stores/memory/memory-record-store.js';
import type { MemoryRecordStore } from '../../stores/memory-record-store.js';
import { createSqliteStore } from '../../stores/sqlite/sqlite-store.js';
import { createLongTermMemory } from './long-term-memory.js';
import { createLongTermServices } from './long-term-services.js';
import {
  createProcedureLibrary,
  MAX_PROCEDURES_PER_AGENT,
  ProcedureLimitError,
} from './procedure-library.js';

let embedder: EmbeddingProvider;
let counter: TokenCounter;
beforeAll(async () => {
  embedder = await createStaticEmbeddingProvider();
  counter = await loadTokenCounter('o200k_base');
});
const tenant = 'acme';

/** The store with its listMemories calls counted. */
function counting(store: MemoryRecordStore): { store: MemoryRecordStore; lists: () => number } {
  let lists = 0;
  const wrapper = Object.create(store) as MemoryRecordStore;
  wrapper.listMemories = (...args) => {
    lists += 1;
    return store.listMemories(...args);
  };
  return { store: wrapper, lists: () => lists };
}

const drivers: [string, () => Promise<{ store: MemoryRecordStore; close: () => Promise<void> }>][] = [
  ['memory', async () => ({ store: createMemoryRecordStore(), close: async () => {} })],
  [
    'sqlite',
    async () => {
      const store = await createSqliteStore({ path: ':memory:' });
      return { store: store.memories, close: () => store.close() };
    },
  ],
];

describe.each(drivers)('procedure matching (%s)', (_name, open) => {
  it('reads an agent procedures once, until a procedure changes by any path', async () => {
    const { store, close } = await open();
    const { store: counted, lists } = counting(store);
    const { procedures, memories } = createLongTermServices(counted, embedder, counter, () => new Date());
    expect(await procedures.match(tenant, 'bot', 'refund my order')).toBeNull();
    const refund = await procedures.create(tenant, {
      agentId: 'bot',
      name: 'Refund',
      triggers: ['\\brefund\\b'],
      steps: ['Ask for the order number'],
    });
    // Pending: not matched, and the write made the next turn read again.
    expect(await procedures.match(tenant, 'bot', 'refund my order')).toBeNull();
    await procedures.approve(tenant, refund.id);
    const before = lists();
    for (let turn = 0; turn < 5; turn++) {
      expect((await procedures.match(tenant, 'bot', 'I want a refund please'))?.procedure.name).toBe(
        'Refund',
      );
    }
    expect(lists() - before).toBe(1);
    // A new version through the generic memory API is seen on the next turn.
    const current = await procedures.get(tenant, (await procedures.list(tenant, 'bot'))[0]?.id ?? '');
    await memories.edit(tenant, current.id, {
      metadata: { ...current, triggers: ['\\breturn\\b'], version: current.version + 1 },
    });
    expect(await procedures.match(tenant, 'bot', 'I want a refund please')).toBeNull();
    expect((await procedures.match(tenant, 'bot', 'how do I return this'))?.procedure.name).toBe('Refund');
    // Access statistics are no change: no re-read.
    const settled = lists();
    await store.recordAccess(tenant, [current.id], new Date().toISOString());
    await procedures.match(tenant, 'bot', 'how do I return this');
    expect(lists()).toBe(settled);
    await close();
  });

  it('matches by example similarity the same way from the cache', async () => {
    const { store, close } = await open();
    const { procedures } = createLongTermServices(store, embedder, counter, () => new Date());
    const booking = await procedures.create(tenant, {
      agentId: 'bot',
      name: 'Book a flight',
      examples: ['book a flight to paris', 'I need plane tickets'],
      steps: ['Ask for dates'],
    });
    await procedures.approve(tenant, booking.id);
    for (let turn = 0; turn < 2; turn++) {
      const match = await procedures.match(tenant, 'bot', 'book a flight to paris');
      expect(match?.matchedBy).toBe('example');
      expect(match?.score).toBeCloseTo(1, 5);
      // Callers get copies: changing one does not change the next turn's.
      if (match) match.procedure.steps.push('mutated');
    }
    expect((await procedures.match(tenant, 'bot', 'book a flight to paris'))?.procedure.steps).toEqual([
      'Ask for dates',
    ]);
    await close();
  });

  it('matches an approved procedure older than a full page of pending ones', async () => {
    const { store, close } = await open();
    let tick = Date.parse('2024-01-01T00:00:00Z');
    // One second per reading: the approved procedure is strictly older than every pending one.
    const clock = () => {
      tick += 1_000;
      return new Date(tick);
    };
    const { procedures, memories } = createLongTermServices(store, embedder, counter, clock);
    const refund = await procedures.create(tenant, {
      agentId: 'bot',
      name: 'Refund',
      triggers: ['\\brefund\\b'],
      steps: ['Ask for the order number'],
    });
    await procedures.approve(tenant, refund.id);
    // As many pending ones as the cap, written past it (as before the cap, or by racing creates).
    await memories.create(
      tenant,
      Array.from({ length: MAX_PROCEDURES_PER_AGENT }, (_, index) => ({
        text: `Spam ${index}`,
        memoryType: 'procedural' as const,
        agentId: 'bot',
        metadata: {
          name: `Spam ${index}`,
          triggers: [],
          examples: [],
          steps: ['x'],
          status: 'pending',
          version: 1,
        },
      })),
    );
    expect((await procedures.match(tenant, 'bot', 'a refund please'))?.procedure.id).toBe(refund.id);
    expect((await procedures.list(tenant, 'bot', 'approved')).map(({ id }) => id)).toEqual([refund.id]);
    expect(await procedures.list(tenant, 'bot')).toHaveLength(MAX_PROCEDURES_PER_AGENT + 1);
    await close();
  });

  it('refuses a procedure past the per-agent cap, naming it, for that agent only', async () => {
    const { store, close } = await open();
    const memories = createLongTermMemory(store, embedder, () => new Date());
    const procedures = createProcedureLibrary(memories, embedder, { maxPerAgent: 2 });
    const input = (name: string, agentId = 'bot') => ({ agentId, name, steps: ['Do it'] });
    await procedures.create(tenant, input('One'));
    const two = await procedures.create(tenant, input('Two'));
    await procedures.reject(tenant, two.id);
    // Rejected ones count too: the cap bounds what every match reads.
    const refused = await procedures.create(tenant, input('Three')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProcedureLimitError);
    expect(refused).toMatchObject({ code: 'procedure_limit_reached', httpStatus: 422 });
    expect((refused as Error).message).toMatch(/already has 2 procedures.*MAX_PROCEDURES_PER_AGENT/);
    expect(await procedures.list(tenant, 'bot')).toHaveLength(2);
    await procedures.create(tenant, input('Three', 'other-bot'));
    await procedures.delete(tenant, two.id);
    await procedures.create(tenant, input('Three'));
    await close();
  });
});
