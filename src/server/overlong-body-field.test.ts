import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBodyFieldCounter, overlongBodyField, PREFIX_CHARS } from './overlong-body-field.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('overlongBodyField', () => {
  it('finds a top-level list over its limit, and only those the limits name', async () => {
    const limits = { arrays: { messages: 3 } };
    expect(await overlongBodyField(bytes('{"messages": [1, 2, 3]}'), limits)).toBeNull();
    expect(await overlongBodyField(bytes('{"messages": [1, 2, 3, 4]}'), limits)).toEqual({
      field: 'messages',
      limit: 3,
      kind: 'array',
    });
    expect(await overlongBodyField(bytes('{"other": [1, 2, 3, 4], "messages": []}'), limits)).toBeNull();
    // Nested lists, objects and strings full of structure do not count as items.
    const nested = '{"messages": [[1, 2, 3, 4], {"a": [5, 6], "b": ",,,"}, "x,\\"],[,"]}';
    expect(await overlongBodyField(bytes(nested), limits)).toBeNull();
    // A list deeper in the body is not the top-level field.
    expect(await overlongBodyField(bytes('{"data": {"messages": [1, 2, 3, 4]}}'), limits)).toBeNull();
    // A key spelled with escapes is the same key.
    expect(await overlongBodyField(bytes('{"mess\\u0061ges": [1, 2, 3, 4]}'), limits)).not.toBeNull();
    // Not JSON, or not an object: nothing found (the parser reports what is wrong).
    expect(await overlongBodyField(bytes('[1, 2, 3, 4, 5]'), limits)).toBeNull();
    expect(await overlongBodyField(bytes('{"messages": [1, 2, 3, 4'), limits)).not.toBeNull();
  });

  it('reads past the first slice (and yields) on a large body', async () => {
    const items = Array.from({ length: 200_000 }, (_, index) => `{"content": "message ${index}, é"}`);
    const body = bytes(`{"context": "${'ü'.repeat(300_000)}", "messages": [${items.join(', ')}]}`);
    expect(body.length).toBeGreaterThan(1024 * 1024);
    expect(await overlongBodyField(body, { arrays: { messages: 199_999 } })).toEqual({
      field: 'messages',
      limit: 199_999,
      kind: 'array',
    });
    expect(await overlongBodyField(body, { arrays: { messages: 200_000 } })).toBeNull();
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
          expect(await overlongBodyField(body, { arrays: { messages: items - 1 || 1 } })).toEqual(
            items > 1 ? { field: 'messages', limit: items - 1, kind: 'array' } : null,
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
          const whole = createBodyFieldCounter({ arrays: limits }).feed(body);
          const counter = createBodyFieldCounter({ arrays: limits });
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
          const found = await overlongBodyField(bytes(JSON.stringify(object, null, 1)), { arrays: limits });
          const over = Object.entries(object).find(
            ([key, item]) => key in limits && Array.isArray(item) && item.length > limit,
          );
          expect(found?.field ?? null).toBe(over?.[0] ?? null);
        },
      ),
    );
  });

  it("measures a string field's characters as `length` counts them, however its chunks arrive", () => {
    // Characters of every UTF-8 length, surrogate pairs, and what JSON escapes (quotes, backslashes,
    // control characters as \uXXXX); written with ensure-ASCII escapes too (\uXXXX for all).
    const character = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.constantFrom('x', 'é', '€', '😀', '"', '\\', '\n', '\u0001'),
    );
    // Past PREFIX_CHARS characters too, so that the prefix is cut (fast-check's default size would
    // keep every string to about 10 characters).
    const content = fc.oneof(
      fc.array(character, { minLength: 190, maxLength: 300, size: 'max' }),
      fc.array(character, { maxLength: 20 }),
    );
    // Runs whose prefix was cut at PREFIX_CHARS.
    let capped = 0;
    const runs = 500;
    fc.assert(
      fc.property(
        content,
        fc.integer({ min: -2, max: 2 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 20 }),
        (characters, offset, asciiOnly, cuts) => {
          const content = characters.join('');
          const limit = Math.max(1, content.length + offset);
          let text = JSON.stringify({ name: 'a', content, tail: [1] });
          if (asciiOnly)
            text = text.replace(
              /[\u0080-\uffff]/g,
              (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
            );
          expect(JSON.parse(text).content).toBe(content);
          const body = bytes(text);
          const counter = createBodyFieldCounter({ strings: { content: limit } });
          let found = null;
          for (let start = 0, cut = 0; start < body.length && !found; cut++) {
            const size = cuts[cut % cuts.length] ?? 1;
            found = counter.feed(body.subarray(start, start + size));
            start += size;
          }
          if (content.length <= limit) {
            expect(found).toBeNull();
            return;
          }
          expect(found).toMatchObject({ field: 'content', limit, kind: 'string' });
          const prefix = found?.prefix ?? '';
          expect(content.startsWith(prefix)).toBe(true);
          expect(prefix.length).toBeLessThanOrEqual(PREFIX_CHARS);
          expect(prefix.length).toBeGreaterThanOrEqual(Math.min(PREFIX_CHARS, limit) - 2);
          if (prefix.length === PREFIX_CHARS) capped += 1;
        },
      ),
      { numRuns: runs },
    );
    expect(capped).toBeGreaterThan(runs / 20);
  });

  it('measures only the top-level strings the limits name, keys and nested values aside', async () => {
    const limits = { strings: { content: 3 } };
    expect(await overlongBodyField(bytes('{"content": "abc"}'), limits)).toBeNull();
    expect(await overlongBodyField(bytes('{"content": "abcd"}'), limits)).toMatchObject({ prefix: 'abcd' });
    expect(await overlongBodyField(bytes('{"name": "abcdef", "content": "a"}'), limits)).toBeNull();
    expect(
      await overlongBodyField(bytes('{"abcdef": "content", "x": {"content": "abcdef"}}'), limits),
    ).toBeNull();
    expect(await overlongBodyField(bytes('{"content": ["abcdef"]}'), limits)).toBeNull();
    // A string and a list limit side by side.
    const both = { arrays: { items: 1 }, strings: { content: 3 } };
    expect(await overlongBodyField(bytes('{"items": [1], "content": "abcd"}'), both)).toMatchObject({
      kind: 'string',
    });
    expect(await overlongBodyField(bytes('{"items": [1, 2], "content": "abc"}'), both)).toMatchObject({
      kind: 'array',
    });
  });

  it('refuses a 40 MB string once it passes its limit, without reading the rest', () => {
    const counter = createBodyFieldCounter({ strings: { content: 5_000_000 } });
    const head = bytes('{"content": "');
    const chunk = bytes('x'.repeat(64 * 1024));
    let chunks = 0;
    let found = counter.feed(head);
    while (!found && chunks < 700) {
      found = counter.feed(chunk);
      chunks++;
    }
    expect(found).toMatchObject({ field: 'content', limit: 5_000_000, prefix: 'x'.repeat(PREFIX_CHARS) });
    expect(chunks).toBe(Math.ceil(5_000_001 / (64 * 1024)));
  });
});
