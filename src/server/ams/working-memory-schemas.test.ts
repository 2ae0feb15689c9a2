import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_MEMORIES, MAX_SESSION_MESSAGES } from '../../core/schemas/session.js';
import { RequestValidationError } from '../request-validation-error.js';
import { validateRequest } from '../validate-request.js';
import { amsWorkingMemoryBodyInSlices, amsWorkingMemoryBodySchema } from './working-memory-schemas.js';

/** `count` items whose every field read is counted: a parse that reaches any item reads one. */
function spiedItems(count: number) {
  const reads = { count: 0 };
  const item = new Proxy(
    {},
    {
      get: () => {
        reads.count++;
        return 'x';
      },
      has: () => {
        reads.count++;
        return true;
      },
    },
  );
  return { items: Array.from({ length: count }, () => item), reads };
}

describe('working-memory PUT body limits', () => {
  it.each([
    ['messages', MAX_SESSION_MESSAGES],
    ['memories', MAX_SESSION_MEMORIES],
  ])('refuses more than the %s limit without parsing any item', (field, limit) => {
    const { items, reads } = spiedItems(limit + 1);
    expect(() => validateRequest(amsWorkingMemoryBodySchema, { [field]: items }, 'body')).toThrowError(
      RequestValidationError,
    );
    expect(reads.count).toBe(0);
  });

  it('does parse the items of a batch within the limit (the spy sees them)', () => {
    const { items, reads } = spiedItems(2);
    expect(() => validateRequest(amsWorkingMemoryBodySchema, { messages: items }, 'body')).toThrowError();
    expect(reads.count).toBeGreaterThan(0);
  });
});

const past = '2024-05-01T10:00:00Z';
const message = fc.oneof(
  fc.record(
    {
      role: fc.constantFrom('user', 'assistant', 'tool', 'robot'),
      content: fc.oneof(fc.string({ maxLength: 5 }), fc.constant('  '), fc.integer()),
      created_at: fc.constantFrom(past, 'yesterday', null),
      id: fc.constantFrom('', 'a', 7),
      discrete_memory_extracted: fc.constantFrom('t', 'x'),
    },
    { requiredKeys: ['role'] },
  ),
  fc.anything({ maxDepth: 1 }),
);
const body = fc.oneof(
  fc.record(
    {
      messages: fc.oneof(fc.array(message, { maxLength: 8 }), fc.anything({ maxDepth: 1 })),
      memories: fc.constantFrom([], [{ text: '' }], [{ text: 'x', topics: ['a,b'] }], 'x'),
      data: fc.constantFrom(null, {}, 3),
      context: fc.constantFrom(null, 'summary', 4),
      user_id: fc.constantFrom(null, 'u', 5),
      ttl_seconds: fc.constantFrom(null, 60, 0, '7'),
      created_at: fc.constantFrom(past, 'never'),
      session_id: fc.string({ maxLength: 3 }),
    },
    { requiredKeys: [] },
  ),
  fc.anything({ maxDepth: 1 }),
);

describe('working-memory PUT body validated in slices', () => {
  it('gives what the whole schema gives: the same data, or the same issues in the same order', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const expected = amsWorkingMemoryBodySchema.safeParse(input, { reportInput: true });
        const actual = await amsWorkingMemoryBodyInSlices.safeParse(input, async () => {}, {
          reportInput: true,
        });
        expect(actual.success).toBe(expected.success);
        if (expected.success) expect(actual.data).toEqual(expected.data);
        else expect(actual.error?.issues).toEqual(expected.error.issues);
      }),
      { numRuns: 300 },
    );
  });
});
