import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { parseJsonInSlices } from './parse-json-in-slices.js';

const pause = () => Promise.resolve();
const json = fc.jsonValue({ maxDepth: 3 });

/** What JSON.parse does with `text`: its value, or the message it throws. */
function reference(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function sliced(text: string): Promise<{ value: unknown } | { error: string }> {
  try {
    return { value: await parseJsonInSlices(text, 'messages', pause) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('parseJsonInSlices', () => {
  it('returns what JSON.parse returns for objects holding the array, however laid out', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('data', 'context', 'me"ssages', 'messages\\u0000'), json, {
          maxKeys: 3,
        }),
        fc.array(json, { maxLength: 30 }),
        fc.constantFrom(0, 1, '\t'),
        fc.boolean(),
        async (others, messages, indent, first) => {
          const object = first ? { messages, ...others } : { ...others, messages };
          const text = JSON.stringify(object, null, indent);
          expect(await sliced(text)).toEqual(reference(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds the items across strings with escapes, quotes and long runs, without parsing the text whole', async () => {
    const messages = [
      { role: 'user', content: 'say "hi" \\ and \\"more\\" ]}' },
      { role: 'user', content: `${'x'.repeat(100_000)}"` },
      { role: 'user', content: '\\\\' },
    ];
    const text = JSON.stringify({ data: { note: '"}], "messages": [' }, messages });
    const expected = JSON.parse(text);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(await parseJsonInSlices(text, 'messages', pause)).toEqual(expected);
      expect(parse.mock.calls.some(([argument]) => argument === text)).toBe(false);
    } finally {
      parse.mockRestore();
    }
  });

  it('throws what JSON.parse throws for malformed text, and never accepts what it refuses', async () => {
    const body = fc
      .tuple(
        fc.array(json, { maxLength: 12 }),
        fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 2 }),
      )
      .map(([messages, others]) => JSON.stringify({ ...others, messages }));
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.nat(),
        fc.constantFrom('', ',', ']', '[', '}', '{', '"', ':', ' 1', ',,', '\\'),
        fc.nat({ max: 3 }),
        async (text, at, insert, remove) => {
          const position = at % (text.length + 1);
          const mutated = text.slice(0, position) + insert + text.slice(position + remove);
          expect(await sliced(mutated)).toEqual(reference(mutated));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('keeps the value of a key given twice, as JSON.parse does, and parses other shapes whole', async () => {
    for (const text of [
      '{"messages": [1], "messages": [2, 3]}',
      '{"messages": "not a list"}',
      '[{"messages": [1]}]',
      '{"messages": [1, 2,]}',
      '{"messages": [ ]}',
      '{"a": {"messages": [1]}, "messages": [[1, 2], {"b": [3]}]}',
    ]) {
      expect(await sliced(text)).toEqual(reference(text));
    }
  });

  it('pauses while scanning and parsing a long array', async () => {
    const text = JSON.stringify({ messages: Array.from({ length: 5_000 }, (_, index) => ({ index })) });
    let pauses = 0;
    const value = await parseJsonInSlices(text, 'messages', async () => {
      pauses += 1;
    });
    expect(value).toEqual(JSON.parse(text));
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(5_000 / 256));
  });
});
