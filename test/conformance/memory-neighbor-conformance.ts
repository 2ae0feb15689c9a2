import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  CURRENT,
  day,
  EVERYTHING,
  insertAll,
  type MemoryConformanceContext,
  newMemory,
  OTHER_TENANT,
  T0,
  TENANT,
} from './memory-record-fixtures.js';

/** `T0` plus `seconds` seconds, as ISO text. */
const second = (seconds: number): string => new Date(Date.parse(T0) + seconds * 1_000).toISOString();

/** A chat turn of `sessionId` created `at` seconds after T0. */
const turn = (id: string, sessionId: string | null, at: number, overrides = {}) =>
  newMemory(id, { sessionId, createdAt: second(at), memoryType: 'message', ...overrides });

/** `sessionNeighbors`: the contract's conversational adjacency, the same in every driver. */
export function describeMemoryNeighborConformance(context: MemoryConformanceContext): void {
  it('returns the turns before and after each record in its session, nearest first', async () => {
    await insertAll(context.memories, [
      turn('t3', 's1', 3),
      turn('t1', 's1', 1),
      turn('t5', 's1', 5),
      turn('t2', 's1', 2),
      turn('t4', 's1', 4),
      turn('other', 's2', 3),
      turn('loose', null, 3),
    ]);
    const result = await context.memories.sessionNeighbors(TENANT, ['t3', 't1', 't5'], CURRENT, 2);
    expect(result).toEqual([
      { id: 't3', sessionId: 's1', before: ['t2', 't1'], after: ['t4', 't5'] },
      { id: 't1', sessionId: 's1', before: [], after: ['t2', 't3'] },
      { id: 't5', sessionId: 's1', before: ['t4', 't3'], after: [] },
    ]);
    const narrow = await context.memories.sessionNeighbors(TENANT, ['t3'], CURRENT, 1);
    expect(narrow).toEqual([{ id: 't3', sessionId: 's1', before: ['t2'], after: ['t4'] }]);
    const none = await context.memories.sessionNeighbors(TENANT, ['t3'], CURRENT, 0);
    expect(none).toEqual([{ id: 't3', sessionId: 's1', before: [], after: [] }]);
  });

  it('orders equal creation times by id, skips absent and sessionless ids, and repeats an id once', async () => {
    await insertAll(context.memories, [
      turn('b', 's1', 7),
      turn('a', 's1', 7),
      turn('c', 's1', 7),
      turn('loose', null, 7),
    ]);
    const result = await context.memories.sessionNeighbors(
      TENANT,
      ['b', 'missing', 'loose', 'b', 'a'],
      CURRENT,
      5,
    );
    expect(result).toEqual([
      { id: 'b', sessionId: 's1', before: ['a'], after: ['c'] },
      { id: 'a', sessionId: 's1', before: [], after: ['b', 'c'] },
    ]);
    expect(await context.memories.sessionNeighbors(TENANT, [], CURRENT, 2)).toEqual([]);
  });

  it('takes neighbours among the records the filter accepts; the record itself need not pass it', async () => {
    await insertAll(context.memories, [
      turn('q', 's1', 1),
      turn('note', 's1', 2, { memoryType: 'semantic' }),
      turn('a', 's1', 3),
      turn('old', 's1', 4),
      turn('end', 's1', 5),
    ]);
    await context.memories.supersede(TENANT, 'old', turn('new', 's1', 6));
    const messages = { ...CURRENT, memoryType: { eq: 'message' } };
    expect(await context.memories.sessionNeighbors(TENANT, ['q', 'note'], messages, 2)).toEqual([
      { id: 'q', sessionId: 's1', before: [], after: ['a', 'end'] },
      { id: 'note', sessionId: 's1', before: ['q'], after: ['a', 'end'] },
    ]);
    // A superseded version is no neighbour by default, yet it still has neighbours itself.
    expect(await context.memories.sessionNeighbors(TENANT, ['old'], CURRENT, 1)).toEqual([
      { id: 'old', sessionId: 's1', before: ['a'], after: ['end'] },
    ]);
    expect(await context.memories.sessionNeighbors(TENANT, ['a'], EVERYTHING, 2)).toEqual([
      { id: 'a', sessionId: 's1', before: ['note', 'q'], after: ['old', 'end'] },
    ]);
  });

  it('keeps tenants apart and forgets deleted records', async () => {
    await insertAll(context.memories, [turn('a', 's1', 1), turn('b', 's1', 2), turn('c', 's1', 3)]);
    await insertAll(context.memories, [turn('a', 's1', 1), turn('x', 's1', 2)], OTHER_TENANT);
    expect(await context.memories.sessionNeighbors(OTHER_TENANT, ['a', 'b'], CURRENT, 2)).toEqual([
      { id: 'a', sessionId: 's1', before: [], after: ['x'] },
    ]);
    await context.memories.deleteMemories(TENANT, ['b']);
    expect(await context.memories.sessionNeighbors(TENANT, ['a', 'b'], CURRENT, 2)).toEqual([
      { id: 'a', sessionId: 's1', before: [], after: ['c'] },
    ]);
  });

  it('agrees with the session’s creation-order listing for any records, filter and window', async () => {
    const spec = fc.record({
      records: fc.array(
        fc.record({
          session: fc.constantFrom('s1', 's2', null),
          at: fc.integer({ min: 0, max: 4 }),
          userId: fc.constantFrom('u1', 'u2'),
        }),
        { minLength: 1, maxLength: 12 },
      ),
      window: fc.integer({ min: 0, max: 4 }),
      user: fc.constantFrom('u1', 'u2', undefined),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(spec, async ({ records, window, user }) => {
        // A tenant per run: the store stays the test's one store.
        const tenant = `property-${run++}`;
        const inputs = records.map((record, index) =>
          turn(`m${(index * 7) % 12}-${index}`, record.session, record.at, {
            userId: record.userId,
            createdAt: day(record.at),
          }),
        );
        await insertAll(context.memories, inputs, tenant);
        const filter = user === undefined ? CURRENT : { ...CURRENT, userId: { eq: user } };
        const ids = inputs.map((input) => input.id);
        const result = await context.memories.sessionNeighbors(tenant, ids, filter, window);
        // The reference: the session's records in creation order (times are canonical ISO text,
        // ids ASCII, so plain string order is the contract's order).
        type Input = (typeof inputs)[number];
        const sortsBefore = (left: Input, right: Input) =>
          left.createdAt < right.createdAt || (left.createdAt === right.createdAt && left.id < right.id);
        const expected = inputs.flatMap((anchor) => {
          if (anchor.sessionId === null) return [];
          const session = inputs
            .filter(
              (input) =>
                input.sessionId === anchor.sessionId &&
                input.id !== anchor.id &&
                (user === undefined || input.userId === user),
            )
            .sort((left, right) => (sortsBefore(left, right) ? -1 : 1));
          const before = session.filter((input) => sortsBefore(input, anchor));
          const after = session.filter((input) => !sortsBefore(input, anchor));
          return [
            {
              id: anchor.id,
              sessionId: anchor.sessionId,
              before: before
                .reverse()
                .slice(0, window)
                .map((input) => input.id),
              after: after.slice(0, window).map((input) => input.id),
            },
          ];
        });
        expect(result).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });
}
