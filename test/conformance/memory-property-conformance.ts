import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { MemoryFilter, MemoryRecord } from '../../src/core/schemas/memory-record.js';
import { words } from '../../src/core/text/analyze-text.js';
import type { EngramStore } from '../../src/stores/engram-store.js';
import { compileMemoryFilter, DATE_FIELDS } from '../../src/stores/memory-filter.js';
import type { MemoryPage } from '../../src/stores/memory-record-store.js';
import { compareMemoryOrder, cosineDistance, vectorNorm } from '../../src/stores/memory-rules.js';
import { day, everything, idsOf, MODEL, newMemory, TENANT } from './memory-record-fixtures.js';

const VOCABULARY = ['apple', 'river', 'stone', 'cloud', 'ember'];
const ID_POOL = Array.from({ length: 8 }, (_, index) => [`m${index}`, `m${index}-v2`]).flat();
/** Values records take, plus one no record has, so that filters both hit and miss. */
const VALUES = {
  namespace: ['a', 'b', 'zz'],
  userId: ['u1', 'u2', 'zz'],
  sessionId: ['s1', 'zz'],
  agentId: ['x', 'zz'],
  documentId: ['d', 'zz'],
  memoryType: ['semantic', 'episodic', 'message'],
  topics: ['t1', 't2', 't3', 'zz'],
  entities: ['e1', 'e2', 'zz'],
} as const;

const recordSpec = fc.record({
  namespace: fc.constantFrom('a', 'b', null),
  userId: fc.constantFrom('u1', 'u2', null),
  sessionId: fc.constantFrom('s1', null),
  agentId: fc.constantFrom('x', null),
  documentId: fc.constantFrom('d', null),
  memoryType: fc.constantFrom('semantic' as const, 'episodic' as const),
  topics: fc.subarray(['t1', 't2', 't3']),
  entities: fc.subarray(['e1', 'e2']),
  eventDay: fc.option(fc.integer({ min: 0, max: 5 })),
  createdDay: fc.integer({ min: 0, max: 5 }),
  accessedDay: fc.integer({ min: 0, max: 5 }),
  pinned: fc.boolean(),
  words: fc.subarray(VOCABULARY, { minLength: 1 }),
  vector: fc.option(
    fc.tuple(
      fc.integer({ min: -3, max: 3 }),
      fc.integer({ min: -3, max: 3 }),
      fc.integer({ min: 0, max: 3 }),
    ),
  ),
  superseded: fc.boolean(),
});
type RecordSpec = typeof recordSpec extends fc.Arbitrary<infer T> ? T : never;

const tagFilter = (values: readonly string[]) =>
  fc.record(
    {
      eq: fc.constantFrom(...values),
      ne: fc.constantFrom(...values),
      any: fc.subarray([...values]),
      all: fc.subarray([...values], { maxLength: 2 }),
      none: fc.subarray([...values]),
      exists: fc.boolean(),
      startswith: fc.constantFrom(...values.map((value) => value.slice(0, 1)), ...values),
    },
    { requiredKeys: [] },
  );
const dateRange = fc.record(
  {
    ...Object.fromEntries(
      ['gt', 'gte', 'lt', 'lte'].map((bound) => [bound, fc.integer({ min: 0, max: 5 }).map(day)]),
    ),
    except: fc
      .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 3 }))
      .map(([from, length]) => ({ gte: day(from), lt: day(from + length) })),
  },
  { requiredKeys: [] },
);
const condition: fc.Arbitrary<Partial<MemoryFilter>> = fc.oneof(
  fc.record({ ids: fc.subarray(ID_POOL) }),
  fc
    .constantFrom(...(Object.keys(VALUES) as (keyof typeof VALUES)[]))
    .chain((field) => tagFilter(VALUES[field]).map((tag) => ({ [field]: tag }))),
  fc.constantFrom(...DATE_FIELDS).chain((field) => dateRange.map((range) => ({ [field]: range }))),
  fc.record({ pinned: fc.boolean() }),
);
const query = fc.record({
  filter: fc
    .tuple(fc.array(condition, { maxLength: 3 }), fc.boolean())
    .map(
      ([conditions, includeSuperseded]): MemoryFilter => Object.assign({ includeSuperseded }, ...conditions),
    ),
  word: fc.constantFrom(...VOCABULARY),
  vector: fc.tuple(
    fc.integer({ min: -2, max: 2 }),
    fc.integer({ min: -2, max: 2 }),
    fc.integer({ min: -2, max: 2 }),
  ),
  page: fc.record({
    limit: fc.integer({ min: 0, max: 6 }),
    offset: fc.integer({ min: 0, max: 8 }),
    order: fc.constantFrom<MemoryPage['order']>('created_desc', 'created_asc', 'last_accessed_desc'),
  }),
});

async function seed(store: EngramStore, specs: RecordSpec[]): Promise<Map<string, number[]>> {
  const vectors = new Map<string, number[]>();
  const scopes = specs.map(
    ({ words: _words, eventDay, createdDay, accessedDay, superseded, vector, ...fields }) => ({
      ...fields,
      eventDate: eventDay === null ? null : day(eventDay),
      createdAt: day(createdDay),
      lastAccessed: day(accessedDay),
    }),
  );
  const records = specs.map((spec, index) => {
    const id = `m${index}`;
    if (spec.vector) vectors.set(id, spec.vector);
    return newMemory(id, { ...scopes[index], text: `${spec.words.join(' ')} ${index}`, vector: spec.vector });
  });
  await store.memories.insertMemories(TENANT, records);
  for (const [index, spec] of specs.entries()) {
    if (!spec.superseded) continue;
    const replacement = newMemory(`m${index}-v2`, { ...scopes[index], text: `replaced ${index}` });
    await store.memories.supersede(TENANT, `m${index}`, replacement);
  }
  return vectors;
}

const hasWord = (record: MemoryRecord, word: string) => words(record.text).includes(word);

/**
 * Random records and random filters: every driver must return exactly what the reference predicate
 * (`memory-filter.ts`) accepts, whether listing, paging, counting, or searching text and vectors.
 */
export function describeMemoryPropertyConformance(factory: () => Promise<EngramStore>): void {
  it('lists, counts and searches exactly the records the reference filter accepts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordSpec, { minLength: 1, maxLength: 8 }),
        fc.array(query, { minLength: 1, maxLength: 4 }),
        async (specs, queries) => {
          const store = await factory();
          try {
            const vectors = await seed(store, specs);
            const all = await everything(store.memories);
            for (const { filter, word, vector, page } of queries) {
              const accepted = all
                .filter(compileMemoryFilter(filter))
                .sort(compareMemoryOrder(page.order ?? 'created_desc'));
              const listed = await store.memories.listMemories(TENANT, filter, page);
              expect(listed.total).toBe(accepted.length);
              expect(await store.memories.countMemories(TENANT, filter)).toBe(accepted.length);
              expect(idsOf(listed.memories)).toEqual(
                idsOf(accepted.slice(page.offset, page.offset + page.limit)),
              );

              const text = await store.memories.searchText(TENANT, word, filter, 100);
              expect(idsOf(text).sort()).toEqual(
                idsOf(accepted.filter((record) => hasWord(record, word))).sort(),
              );

              const query = Float32Array.from(vector);
              const nearest = await store.memories.searchVector(TENANT, query, MODEL, filter, 100);
              const embedded = accepted.filter((record) => record.embeddingModel === MODEL);
              expect(idsOf(nearest).sort()).toEqual(idsOf(embedded).sort());
              for (const [index, hit] of nearest.entries()) {
                const stored = vectors.get(hit.id) ?? [];
                const dot = stored.reduce((sum, value, axis) => sum + value * (vector[axis] ?? 0), 0);
                expect(hit.distance).toBeCloseTo(
                  cosineDistance(dot, vectorNorm(stored), vectorNorm(vector)),
                  5,
                );
                if (index > 0)
                  expect(hit.distance).toBeGreaterThanOrEqual((nearest[index - 1]?.distance ?? 0) - 1e-6);
              }
            }
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: Number(process.env.MEMORY_PROPERTY_RUNS ?? 40) },
    );
  });
}
