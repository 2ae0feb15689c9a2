import fc from 'fast-check';
import type { FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { parseInSlices } from '../engine/parse-in-slices.js';
import { readJsonBodyInSlices, SLICED_JSON_CHARS } from './read-json-body.js';
import { readBodyMappingItems } from './request-parts.js';
import { validationResult } from './validate-request.js';

const noPause = async () => {};
const schema = parseInSlices(
  z.object({ name: z.string().default('x'), list: z.array(z.object({ n: z.number(), pad: z.string() })) }),
  'list',
);
const requestOf = (body: string) =>
  ({ body, headers: { 'content-type': 'application/json' } }) as unknown as FastifyRequest;
/** A body past SLICED_JSON_CHARS: read lazily. */
const longBody = (count: number) =>
  JSON.stringify({
    name: 'long',
    list: Array.from({ length: count }, (_, n) => ({
      n,
      pad: 'p'.repeat(Math.ceil(SLICED_JSON_CHARS / count)),
    })),
  });

/** The outcome of a read: its value, or the error it threw. */
const settle = (read: Promise<unknown>) =>
  read.then(
    (value) => ({ value }),
    (error: Error) => ({
      error: error.name,
      detail: (error as { details?: unknown }).details ?? error.message,
    }),
  );

afterEach(() => vi.restoreAllMocks());

/** The body parsed whole (in slices), then validated: the path every fault is sent down. */
async function readWhole(text: string) {
  const input = await readJsonBodyInSlices(requestOf(text), 'list', noPause);
  return validationResult(await schema.safeParse(input, noPause, { reportInput: true }), input, 'body');
}

describe('readBodyMappingItems', () => {
  it('parses, validates and maps each item before the next, for a long body', async () => {
    const text = longBody(300);
    const events: string[] = [];
    const parse = JSON.parse;
    vi.spyOn(JSON, 'parse').mockImplementation((source: string, reviver) => {
      const value = parse(source, reviver);
      if (typeof value?.n === 'number') events.push(`parse ${value.n}`);
      return value;
    });
    const body = await readBodyMappingItems(requestOf(text), schema, noPause, (item) => {
      events.push(`map ${item.n}`);
      return item.n * 2;
    });
    expect(body).toEqual({ name: 'long', list: Array.from({ length: 300 }, (_, n) => n * 2) });
    expect(events.slice(0, 4)).toEqual(['parse 0', 'map 0', 'parse 1', 'map 1']);
    expect(events).toHaveLength(600);
  });

  it('answers as the whole body parsed and validated, then mapped, would: faults included', async () => {
    const text = longBody(40);
    const cut = text.lastIndexOf('},{');
    const bodies = [
      text,
      `${text.slice(0, cut + 1)};${text.slice(cut + 2)}`, // malformed JSON in a late item
      `${text.slice(0, cut + 3)}"__proto__":{},${text.slice(cut + 3)}`, // a late __proto__ key
      text.replace('"n":3,', '"n":"three",'), // a late item fails validation
      text.replace('"name":"long"', '"name":7'), // the envelope fails validation
      text.replace('"n":39,', '"n":-1,'), // mapping throws on a late item
      JSON.stringify({ list: [{ n: 1, pad: '' }] }), // a short body, read whole
    ];
    const mapItem = (item: { n: number }) => {
      if (item.n < 0) throw new Error(`negative at ${item.n}`);
      return item.n;
    };
    const expectSameAnswer = async (body: string) => {
      const expected = await settle(
        readWhole(body).then((whole) => ({
          ...whole,
          list: whole.list.map(mapItem),
        })),
      );
      expect(await settle(readBodyMappingItems(requestOf(body), schema, noPause, mapItem))).toEqual(expected);
    };
    // Every body, every time (drawn at random, a few runs would leave some fault out now and then).
    for (const body of bodies) await expectSameAnswer(body);
    // And every fault in an item anywhere, the first and the last included.
    const faults: ((item: string) => string)[] = [
      (item) => `${item},`, // malformed JSON
      (item) => item.replace('{', '{"__proto__":{},'),
      (item) => item.replace(/"n":(\d+),/, '"n":"$1",'), // fails validation
      (item) => item.replace(/"n":\d+,/, '"n":-1,'), // mapping throws
    ];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 39 }), async (n) => {
        const item = `{"n":${n},`;
        expect(text).toContain(item);
        for (const fault of faults) await expectSameAnswer(text.replace(item, fault(item)));
      }),
      { numRuns: 15 },
    );
  });
});
