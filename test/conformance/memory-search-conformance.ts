import { expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import {
  CURRENT,
  EVERYTHING,
  expectCode,
  idsOf,
  insertAll,
  type MemoryConformanceContext,
  MODEL,
  newMemory,
  TENANT,
} from './memory-record-fixtures.js';

/** Text that must stay text: FTS5 operators, column filters, prefixes, quotes and stray symbols. */
const HOSTILE_QUERIES = [
  '"',
  '""',
  '*',
  'AND',
  'OR NOT',
  'NEAR(',
  'NEAR(apple banana, 2)',
  '-',
  ':',
  'text:apple',
  'apple*',
  '^apple',
  '"apple',
  'apple AND NOT',
  '(apple OR',
  '{text memories_fts}: apple',
  'apple + - * / ( ) [ ] { } ^ : ; \' "',
  "o'brien's",
  '\\',
  '\u0000apple',
  '🍎 apple',
];

const unit = (...values: number[]) => Float32Array.from(values);

/** searchText and searchVector: ranking, filters before ranking, safety, models and dimensions. */
export function describeMemorySearchConformance(context: MemoryConformanceContext): void {
  it('ranks text by BM25, best first, and matches stemmed words only', async () => {
    const { memories } = context;
    await insertAll(memories, [
      newMemory('once', { text: 'The garden has one apple tree and many roses' }),
      newMemory('twice', { text: 'Apple pie with apple sauce' }),
      newMemory('runner', { text: 'She runs every morning' }),
      newMemory('other', { text: 'Nothing relevant here at all' }),
    ]);
    const hits = await memories.searchText(TENANT, 'apples', CURRENT, 10);
    expect(idsOf(hits)).toEqual(['twice', 'once']);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Number.POSITIVE_INFINITY);
    expect(hits.every((hit) => hit.score > 0)).toBe(true);
    expect(idsOf(await memories.searchText(TENANT, 'running', CURRENT, 10))).toEqual(['runner']);
    expect(idsOf(await memories.searchText(TENANT, 'apple running', CURRENT, 1))).toHaveLength(1);
    expect(await memories.searchText(TENANT, 'pineapple', CURRENT, 10)).toEqual([]);
    expect(await memories.searchText(TENANT, 'the and of', CURRENT, 10)).toEqual([]);
    expect(await memories.searchText(TENANT, '   ', CURRENT, 10)).toEqual([]);
    expect(await memories.searchText(TENANT, 'apple', CURRENT, 0)).toEqual([]);
  });

  it('filters before ranking: excluding the best match still fills the limit', async () => {
    const { memories } = context;
    await insertAll(memories, [
      newMemory('best', { text: 'kiwi kiwi kiwi kiwi', userId: 'someone-else' }),
      ...Array.from({ length: 6 }, (_, index) =>
        newMemory(`k${index}`, {
          text: `kiwi number ${index} among many other words ${'filler '.repeat(index)}`,
        }),
      ),
    ]);
    expect(idsOf(await memories.searchText(TENANT, 'kiwi', CURRENT, 1))).toEqual(['best']);
    const mine = await memories.searchText(
      TENANT,
      'kiwi',
      { includeSuperseded: false, userId: { eq: 'user-1' } },
      3,
    );
    expect(idsOf(mine)).toEqual(['k0', 'k1', 'k2']);
  });

  it('stops finding a memory by text once a merge closes it, even right after finding it', async () => {
    const { memories } = context;
    await insertAll(memories, [
      newMemory('plum-1', { text: 'The plum tree by the gate' }),
      newMemory('plum-2', { text: 'A plum jam recipe' }),
    ]);
    const mine = { includeSuperseded: false, userId: { eq: 'user-1' } };
    // The same filter twice before the merge: whatever a driver keeps of its answers is in place.
    expect(idsOf(await memories.searchText(TENANT, 'plum', mine, 10)).sort()).toEqual(['plum-1', 'plum-2']);
    expect(idsOf(await memories.searchText(TENANT, 'plum', mine, 10)).sort()).toEqual(['plum-1', 'plum-2']);
    await memories.supersede(TENANT, 'plum-1', newMemory('pear-1', { text: 'The pear tree by the gate' }));
    expect(idsOf(await memories.searchText(TENANT, 'plum', mine, 10))).toEqual(['plum-2']);
    expect(idsOf(await memories.searchText(TENANT, 'plum', EVERYTHING, 10)).sort()).toEqual([
      'plum-1',
      'plum-2',
    ]);
  });

  it('never lets a query act as FTS5 syntax', async () => {
    const { memories } = context;
    await insertAll(memories, [
      newMemory('fruit', { text: 'apple and banana, near the text column' }),
      newMemory('name', { text: "O'Brien's notes" }),
    ]);
    for (const query of HOSTILE_QUERIES) {
      const hits = await memories.searchText(TENANT, query, CURRENT, 10);
      expect({ query, ok: Array.isArray(hits) }).toEqual({ query, ok: true });
    }
    expect(idsOf(await memories.searchText(TENANT, 'text:apple', CURRENT, 10))).toEqual(['fruit']);
    expect(idsOf(await memories.searchText(TENANT, 'NEAR(', CURRENT, 10))).toEqual(['fruit']);
    expect(idsOf(await memories.searchText(TENANT, 'apple*', CURRENT, 10))).toEqual(['fruit']);
    expect(idsOf(await memories.searchText(TENANT, "o'brien's", CURRENT, 10))).toEqual(['name']);
    expect(await memories.searchText(TENANT, 'AND', CURRENT, 10)).toEqual([]);
    // A prefix query would match "apple" here; the word "app" must not.
    expect(await memories.searchText(TENANT, 'app*', CURRENT, 10)).toEqual([]);
  });

  it('orders vectors by cosine distance, scale-invariant, nearest first', async () => {
    const { memories } = context;
    await insertAll(memories, [
      newMemory('same', { vector: [2, 0, 0, 0] }),
      newMemory('near', { vector: [1, 1, 0, 0] }),
      newMemory('orthogonal', { vector: [0, 0, 3, 0] }),
      newMemory('opposite', { vector: [-1, 0, 0, 0] }),
      newMemory('zero', { vector: [0, 0, 0, 0] }),
      newMemory('no-vector'),
    ]);
    const hits = await memories.searchVector(TENANT, unit(0.5, 0, 0, 0), MODEL, CURRENT, 10);
    expect(idsOf(hits)).toEqual(['same', 'near', 'orthogonal', 'zero', 'opposite']);
    const expected = [0, 1 - Math.SQRT1_2, 1, 1, 2];
    for (const [index, hit] of hits.entries())
      expect(hit.distance).toBeCloseTo(expected[index] ?? Number.NaN, 5);
    expect(idsOf(await memories.searchVector(TENANT, unit(1, 0, 0, 0), MODEL, CURRENT, 2))).toEqual([
      'same',
      'near',
    ]);
    expect(await memories.searchVector(TENANT, unit(1, 0, 0, 0), MODEL, CURRENT, 0)).toEqual([]);
    const fromZero = await memories.searchVector(TENANT, unit(0, 0, 0, 0), MODEL, CURRENT, 10);
    expect(fromZero.map((hit) => hit.distance)).toEqual([1, 1, 1, 1, 1]);
  });

  it('searches only vectors of the given model, and checks their dimensions', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('a', { vector: [1, 0, 0, 0] })]);
    await insertAll(memories, [{ ...newMemory('b'), embedding: { model: 'other', vector: unit(1, 0) } }]);
    expect(idsOf(await memories.searchVector(TENANT, unit(1, 0, 0, 0), MODEL, CURRENT, 10))).toEqual(['a']);
    expect(idsOf(await memories.searchVector(TENANT, unit(1, 0), 'other', CURRENT, 10))).toEqual(['b']);
    expect(await memories.searchVector(TENANT, unit(1, 0), 'never-used', CURRENT, 10)).toEqual([]);
    await expectCode(
      memories.searchVector(TENANT, unit(1, 0), MODEL, CURRENT, 10),
      'validation_failed',
      ValidationError,
    );
    await expectCode(
      memories.searchVector(TENANT, unit(1, 0, 0, 0, 0), MODEL, CURRENT, 10),
      'validation_failed',
      ValidationError,
    );
    const empty = { ...CURRENT, userId: { eq: 'nobody' } };
    await expectCode(
      memories.searchVector(TENANT, unit(1, 0), MODEL, empty, 10),
      'validation_failed',
      ValidationError,
    );
  });

  it('filters vectors before taking the nearest', async () => {
    const { memories } = context;
    await insertAll(memories, [
      newMemory('best', { vector: [1, 0, 0, 0], userId: 'someone-else' }),
      newMemory('pinned', { vector: [1, 0.5, 0, 0], pinned: true }),
      newMemory('second', { vector: [1, 0.1, 0, 0] }),
      newMemory('third', { vector: [1, 0.2, 0, 0] }),
      newMemory('fourth', { vector: [1, 0.3, 0, 0] }),
      newMemory('old', { vector: [1, 0.01, 0, 0] }),
    ]);
    await memories.supersede(TENANT, 'old', newMemory('old-2', { text: 'replaced', vector: [0, 1, 0, 0] }));
    const query = unit(1, 0, 0, 0);
    expect(idsOf(await memories.searchVector(TENANT, query, MODEL, CURRENT, 1))).toEqual(['best']);
    const mine = { includeSuperseded: false, userId: { eq: 'user-1' } };
    expect(idsOf(await memories.searchVector(TENANT, query, MODEL, mine, 3))).toEqual([
      'second',
      'third',
      'fourth',
    ]);
    expect(idsOf(await memories.searchVector(TENANT, query, MODEL, { ...mine, pinned: true }, 3))).toEqual([
      'pinned',
    ]);
    expect(
      idsOf(
        await memories.searchVector(TENANT, query, MODEL, { ...EVERYTHING, userId: { eq: 'user-1' } }, 2),
      ),
    ).toEqual(['old', 'second']);
  });
}
