import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { filterArguments, toMemoryFilter } from './ams-filter-arguments.js';

const parse = (input: unknown) => z.object(filterArguments).parse(input);
/** Procedures are engram's, unknown to AMS clients: every filter leaves them out, as REST's does. */
const noProcedures = { none: ['procedural'] };

describe('toMemoryFilter', () => {
  it('maps AMS field names and keeps every operator', () => {
    expect(
      toMemoryFilter(
        parse({
          user_id: { eq: 'ada', ne: 'bob' },
          topics: { any: ['a', 'b'], all: ['c'], none: ['d'] },
          session_id: { exists: true },
        }),
      ),
    ).toEqual({
      userId: { eq: 'ada', ne: 'bob' },
      topics: { any: ['a', 'b'], all: ['c'], none: ['d'] },
      sessionId: { exists: true },
      memoryType: noProcedures,
    });
  });

  it('accepts the clients’ aliases in_, not_eq and not_in', () => {
    expect(
      toMemoryFilter(parse({ namespace: { in_: ['x'], not_eq: 'y', not_in: ['z'], none: ['w'] } })),
    ).toEqual({ namespace: { any: ['x'], ne: 'y', none: ['w', 'z'] }, memoryType: noProcedures });
  });

  it('turns between into inclusive bounds and eq into its whole second (as REST), keeping the tightest', () => {
    expect(
      toMemoryFilter(
        parse({
          created_at: { between: ['2024-01-01T00:00:00Z', '2024-02-01'], gte: '2024-01-10T00:00:00Z' },
          event_date: { eq: '2024-03-05T10:00:00+01:00', gt: '2024-01-01T00:00:00Z' },
        }),
      ),
    ).toEqual({
      memoryType: noProcedures,
      createdAt: { gte: '2024-01-10T00:00:00.000Z', lte: '2024-02-01T00:00:00.000Z' },
      eventDate: {
        gt: '2024-01-01T00:00:00.000Z',
        gte: '2024-03-05T09:00:00.000Z',
        lt: '2024-03-05T09:00:01.000Z',
      },
    });
  });

  it('rejects operators it cannot honour instead of ignoring them', () => {
    expect(() => parse({ namespace: { startswith: 'work' } })).toThrow();
    expect(() => parse({ created_at: { ne: '2024-01-01T00:00:00Z' } })).toThrow();
    expect(() => parse({ topics: { any: ['a'], in_: ['b'] } })).toThrow(/not both/);
    expect(() => parse({ created_at: { gt: 'last week' } })).toThrow(/ISO 8601/);
    // A long one is refused by its length, and the error does not quote it whole.
    const long = 'X'.repeat(500_000);
    let message = '';
    try {
      parse({ created_at: { gt: long } });
    } catch (error) {
      message = String(error);
    }
    expect(message).not.toBe('');
    expect(message.length).toBeLessThan(2_000);
  });

  it('adds no condition for absent arguments but the one REST adds: never a procedure', () => {
    expect(toMemoryFilter(parse({}))).toEqual({ memoryType: noProcedures });
    expect(toMemoryFilter(parse({ memory_type: { any: ['semantic', 'episodic'] } }))).toEqual({
      memoryType: { any: ['semantic', 'episodic'], none: ['procedural'] },
    });
  });
});
