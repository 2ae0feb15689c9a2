import { expect, it } from 'vitest';
import type { MemoryFilterInput } from '../../src/core/schemas/memory-record.js';
import { matchesMemoryFilter } from '../../src/stores/memory-filter.js';
import type { MemoryPage } from '../../src/stores/memory-record-store.js';
import {
  CURRENT,
  day,
  everything,
  idsOf,
  insertAll,
  type MemoryConformanceContext,
  newMemory,
  TENANT,
} from './memory-record-fixtures.js';

/** Five current records and one superseded one (r5, replaced by r6) that differ in every field. */
async function seedFilterRecords({ memories }: MemoryConformanceContext): Promise<void> {
  const none = { sessionId: null, agentId: null, documentId: null };
  await insertAll(memories, [
    newMemory('r1', {
      ...{ namespace: 'app', userId: 'u1', sessionId: 's1', agentId: 'ag', documentId: null },
      ...{ memoryType: 'semantic', topics: ['food', 'travel'], entities: ['Ana'], pinned: true },
      ...{ eventDate: day(5), createdAt: day(1), lastAccessed: day(9) },
    }),
    newMemory('r2', {
      ...{ namespace: 'app', userId: 'u2', ...none, documentId: 'd1' },
      ...{ memoryType: 'episodic', topics: ['food'], entities: [], pinned: false },
      ...{ eventDate: null, createdAt: day(2), lastAccessed: day(2) },
    }),
    newMemory('r3', {
      ...{ namespace: null, userId: 'u1', sessionId: 's2', agentId: 'ag', documentId: null },
      ...{ memoryType: 'procedural', topics: [], entities: ['Ana', 'Bo'], pinned: false },
      ...{ eventDate: day(7), createdAt: day(3), lastAccessed: day(8) },
    }),
    newMemory('r4', {
      ...{ namespace: 'other', userId: null, sessionId: 's1', agentId: 'bot', documentId: 'd1' },
      ...{ memoryType: 'message', topics: ['travel', 'work'], entities: ['Bo'], pinned: true },
      ...{ eventDate: day(6), createdAt: day(4), lastAccessed: day(4) },
    }),
    newMemory('r5', {
      ...{ namespace: 'app', userId: 'u1', ...none, text: 'old fact', topics: ['food'] },
      ...{ createdAt: day(0), lastAccessed: day(0) },
    }),
  ]);
  const replacement = newMemory('r6', {
    ...{ namespace: 'app', userId: 'u1', ...none, text: 'new fact', topics: ['food', 'cooking'] },
    ...{ createdAt: day(6), lastAccessed: day(5), validFrom: day(6) },
  });
  await memories.supersede(TENANT, 'r5', replacement);
}

const ALL_CURRENT = ['r1', 'r2', 'r3', 'r4', 'r6'];

/** Every operator on every kind of field, with what must match. */
const cases: [MemoryFilterInput, string[]][] = [
  [{}, ALL_CURRENT],
  [{ includeSuperseded: true }, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']],
  [{ ids: ['r1', 'r5', 'zz'] }, ['r1']],
  [{ ids: [] }, []],
  [{ ids: ['r1', 'r5'], includeSuperseded: true }, ['r1', 'r5']],
  [{ namespace: { eq: 'app' } }, ['r1', 'r2', 'r6']],
  [{ namespace: { ne: 'app' } }, ['r3', 'r4']],
  [{ namespace: { any: ['app', 'other'] } }, ['r1', 'r2', 'r4', 'r6']],
  [{ namespace: { any: [] } }, []],
  [{ namespace: { all: ['app'] } }, ['r1', 'r2', 'r6']],
  [{ namespace: { all: ['app', 'other'] } }, []],
  [{ namespace: { all: [] } }, ALL_CURRENT],
  [{ namespace: { none: ['app'] } }, ['r3', 'r4']],
  [{ namespace: { none: [] } }, ALL_CURRENT],
  [{ namespace: { exists: true } }, ['r1', 'r2', 'r4', 'r6']],
  [{ namespace: { exists: false } }, ['r3']],
  [{ userId: { eq: 'u1' } }, ['r1', 'r3', 'r6']],
  [{ userId: { ne: 'u1' } }, ['r2', 'r4']],
  [{ userId: { eq: 'u1', ne: 'u1' } }, []],
  // Values are data, never SQL or JSON syntax.
  [{ userId: { eq: "u1' OR '1'='1" }, topics: { none: ['"]', "food' --"] } }, []],
  [{ sessionId: { eq: 's1' } }, ['r1', 'r4']],
  [{ sessionId: { none: ['s1'] } }, ['r2', 'r3', 'r6']],
  [{ agentId: { any: ['ag', 'bot'] } }, ['r1', 'r3', 'r4']],
  [{ agentId: { all: ['ag', 'ag'] } }, ['r1', 'r3']],
  [{ documentId: { eq: 'd1' } }, ['r2', 'r4']],
  [{ documentId: { ne: 'd1' } }, ['r1', 'r3', 'r6']],
  [{ memoryType: { eq: 'episodic' } }, ['r2']],
  [{ memoryType: { none: ['semantic', 'message'] } }, ['r2', 'r3']],
  [{ topics: { eq: 'food' } }, ['r1', 'r2', 'r6']],
  [{ topics: { ne: 'food' } }, ['r3', 'r4']],
  [{ topics: { any: ['travel', 'cooking'] } }, ['r1', 'r4', 'r6']],
  [{ topics: { any: [] } }, []],
  [{ topics: { all: ['food', 'travel'] } }, ['r1']],
  [{ topics: { all: [] } }, ALL_CURRENT],
  [{ topics: { none: ['food'] } }, ['r3', 'r4']],
  [{ topics: { none: [] } }, ALL_CURRENT],
  [{ topics: { exists: true } }, ['r1', 'r2', 'r4', 'r6']],
  [{ topics: { exists: false } }, ['r3']],
  [{ entities: { exists: false }, documentId: { exists: true } }, ['r2']],
  [{ entities: { eq: 'Ana' } }, ['r1', 'r3']],
  [{ entities: { all: ['Ana', 'Bo'] } }, ['r3']],
  [{ entities: { none: ['Ana'] } }, ['r2', 'r4', 'r6']],
  [{ createdAt: { gte: day(2), lt: day(4) } }, ['r2', 'r3']],
  [{ createdAt: { gt: day(2) } }, ['r3', 'r4', 'r6']],
  [{ createdAt: { lte: day(1) } }, ['r1']],
  // Bounds compare as instants: 01:00+01:00 on day 2 is midnight UTC.
  [{ createdAt: { gte: '2026-01-03T01:00:00.000+01:00' } }, ['r2', 'r3', 'r4', 'r6']],
  [{ eventDate: { gte: day(6) } }, ['r3', 'r4']],
  [{ eventDate: { lte: day(100) } }, ['r1', 'r3', 'r4']],
  // A range with no bound still asks for a date: a record without one fails it.
  [{ eventDate: {} }, ['r1', 'r3', 'r4']],
  [{ lastAccessed: { gt: day(5) } }, ['r1', 'r3']],
  [{ namespace: { startswith: 'ap' } }, ['r1', 'r2', 'r6']],
  [{ namespace: { startswith: 'AP' } }, []],
  [{ namespace: { startswith: 'o', ne: 'x' } }, ['r4']],
  [{ userId: { startswith: '%' } }, []],
  [{ topics: { startswith: 'tr' } }, ['r1', 'r4']],
  [{ topics: { startswith: 'w', none: ['food'] } }, ['r4']],
  [{ createdAt: { except: { gte: day(2), lt: day(4) } } }, ['r1', 'r4', 'r6']],
  [{ eventDate: { except: { gte: day(5), lt: day(6) } } }, ['r3', 'r4']],
  [{ pinned: true }, ['r1', 'r4']],
  [{ pinned: false }, ['r2', 'r3', 'r6']],
  [{ userId: { eq: 'u1' }, topics: { eq: 'food' }, pinned: true }, ['r1']],
  [{ userId: { eq: 'u1' }, topics: { any: ['food'] }, includeSuperseded: true }, ['r1', 'r5', 'r6']],
];

const withDefaults = (filter: MemoryFilterInput) => ({ includeSuperseded: false, ...filter });

/** Filters, paging and ordering of `listMemories`, which search shares. */
export function describeMemoryFilterConformance(context: MemoryConformanceContext): void {
  it('applies every filter operator, null and empty-list rules included', async () => {
    await seedFilterRecords(context);
    const all = await everything(context.memories);
    for (const [input, expected] of cases) {
      const filter = withDefaults(input);
      const { memories, total } = await context.memories.listMemories(TENANT, filter, {
        limit: 100,
        offset: 0,
      });
      expect({ filter, ids: idsOf(memories).sort(), total }).toEqual({
        filter,
        ids: expected,
        total: expected.length,
      });
      // The reference predicate must agree, since the property test trusts it.
      const reference = all.filter((record) => matchesMemoryFilter(record, filter));
      expect({ filter, ids: idsOf(reference).sort() }).toEqual({ filter, ids: expected });
    }
  });

  it('pages with exact totals and a stable order, in each of the three orders', async () => {
    const { memories } = context;
    // Few distinct times, so that the id tie-break decides most of the order.
    const records = Array.from({ length: 23 }, (_, index) =>
      newMemory(`m-${(index * 7) % 23}`.padEnd(6, 'x'), {
        text: `record ${index}`,
        createdAt: day(index % 3),
        lastAccessed: day((index * 5) % 4),
        userId: index % 2 === 0 ? 'even' : 'odd',
      }),
    );
    await insertAll(memories, records);
    const stored = await everything(memories);
    const byTimeThenId = (key: 'createdAt' | 'lastAccessed') =>
      [...stored].sort((a, b) => Date.parse(a[key]) - Date.parse(b[key]) || (a.id < b.id ? -1 : 1));
    const expectations: [MemoryPage['order'], string[]][] = [
      [undefined, idsOf(byTimeThenId('createdAt')).reverse()],
      ['created_desc', idsOf(byTimeThenId('createdAt')).reverse()],
      ['created_asc', idsOf(byTimeThenId('createdAt'))],
      ['last_accessed_desc', idsOf(byTimeThenId('lastAccessed')).reverse()],
    ];
    for (const [order, expected] of expectations) {
      const pages: string[] = [];
      for (let offset = 0; offset < 30; offset += 5) {
        const page = await memories.listMemories(TENANT, CURRENT, {
          limit: 5,
          offset,
          ...(order ? { order } : {}),
        });
        expect(page.total).toBe(23);
        pages.push(...idsOf(page.memories));
      }
      expect({ order, pages }).toEqual({ order, pages: expected });
    }
    const filtered = await memories.listMemories(TENANT, withDefaults({ userId: { eq: 'even' } }), {
      limit: 3,
      offset: 2,
    });
    expect(filtered.total).toBe(12);
    expect(filtered.memories).toHaveLength(3);
    expect(await memories.listMemories(TENANT, CURRENT, { limit: 0, offset: 0 })).toEqual({
      memories: [],
      total: 23,
    });
    expect(await memories.listMemories(TENANT, CURRENT, { limit: 10, offset: 50 })).toEqual({
      memories: [],
      total: 23,
    });
  });
}
