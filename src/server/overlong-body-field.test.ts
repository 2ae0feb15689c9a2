import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBodyArrayCounter, overlongBodyArray } from './overlong-body-array.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('overlongBodyArray', () => {
  it('finds a top-level list over its limit, and only those the limits name', async () => {
    const limits = { messages: 3 };
    expect(await overlongBodyArray(bytes('{"messages": [1, 2, 3]}'), limits)).toBeNull();
    expect(await overlongBodyArray(bytes('{"messages": [1, 2, 3, 4]}'), limits)).toEqual({
      field: 'messages',
      limit: 3,
    });
    expect(await overlongBodyArray(bytes('{"other": [1, 2, 3, 4], "messages": []}'), limits)).toBeNull();
    // Nested lists, objects and strings full of structure do not count as items.
    const nested = '{"messages": [[1, 2, 3, 4], {"a": [5, 6], "b": ",,,"}, "x,\\"],[,"]}';
    expect(await overlongBodyArray(bytes(nested), limits)).toBeNull();
    // A list deeper in the body is not the top-level field.
    expect(await overlongBodyArray(bytes('{"data": {"messages": [1, 2, 3, 4]}}'), limits)).toBeNull();
    // A key spelled with escapes is the same key.
    expect(await overlongBodyArray(bytes('{"mess\\u0061ges": [1, 2, 3, 4]}'), limits)).not.toBeNull();
    // Not JSON, or not an object: nothing found (the parser reports what is wrong).
    expect(await overlongBodyArray(bytes('[1, 2, 3, 4, 5]'), limits)).toBeNull();
    expect(await overlongBodyArray(bytes('{"messages": [1, 2, 3, 4'), limits)).not.toBeNull();
  });

  it('reads past the first slice (and yields) on a large body', async () => {
    const items = Array.from({ length: 200_000 }, (_, index) => `{"content": "message ${index}, é"}`);
    const body = bytes(`{"context": "${'ü'.repeat(300_000)}", "messages": [${items.join(', ')}]}`);
    expect(body.length).toBeGreaterThan(1024 * 1024);
    expect(await overlongBodyArray(body, { messages: 199_999 })).toEqual({
      field: 'messages',
      limit: 199_999,
    });
    expect(await overlongBodyArray(body, { messages: 200_000 })).toBeNull();
  });

  it("finds strings' ends across slices, escaped quotes and backslashes included", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('"', '\\', '\\"', '\\\\', 'é', '[1, 2]', ','),
        fc.integer({ min: 70_000, max: 140_000 }),
        fc.integer({ min: 1, max: 3 }),
        async (unit, repeat, items) => {
          // A long string whose quotes and backslashes fall on and around the 64 KB slice edges.
          const object = {
            context: `x${unit.repeat(repeat)}y`,
            messages: Array.from({ length: items }, () => 'm'),
          };
          const body = bytes(JSON.stringify(object));
          expect(body.length).toBeGreaterThan(64 * 1024);
          expect(await overlongBodyArray(body, { messages: items - 1 || 1 })).toEqual(
            items > 1 ? { field: 'messages', limit: items - 1 } : null,
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('gives the same answer however the body is cut into chunks as it arrives', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.array(fc.string(), { maxLength: 3 }));
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('messages', 'memories', 'data', 'x"y', 'mess\\u0061ges'),
          fc.oneof(value, fc.array(value)),
        ),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 3 }),
        (object, cuts, limit) => {
          const limits = { messages: limit, memories: limit };
          const body = bytes(JSON.stringify(object, null, 1));
          const whole = createBodyArrayCounter(limits).feed(body);
          const counter = createBodyArrayCounter(limits);
          let found = null;
          for (let start = 0, cut = 0; start < body.length && !found; cut++) {
            const size = cuts[cut % cuts.length] ?? 1;
            found = counter.feed(body.subarray(start, start + size));
            start += size;
          }
          expect(found).toEqual(whole);
          const over = Object.entries(object).find(
            ([key, item]) => key in limits && Array.isArray(item) && item.length > limit,
          );
          expect(whole?.field ?? null).toBe(over?.[0] ?? null);
        },
      ),
    );
  });

  it('agrees with JSON.parse on random bodies', async () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom('messages', 'memories', 'data', 'x"y'),
          fc.oneof(value, fc.array(value)),
        ),
        fc.integer({ min: 1, max: 4 }),
        async (object, limit) => {
          const limits = { messages: limit, memories: limit };
          const found = await overlongBodyArray(bytes(JSON.stringify(object, null, 1)), limits);
          const over = Object.entries(object).find(
            ([key, item]) => key in limits && Array.isArray(item) && item.length > limit,
          );
          expect(found?.field ?? null).toBe(over?.[0] ?? null);
        },
      ),
    );
  });
});
