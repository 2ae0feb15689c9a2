import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countLoopTurns } from '../../test/support/loop-turns.js';
import { microtasksUntilSettled } from '../../test/support/microtasks-until-settled.js';
import { nextTurn } from '../core/event-loop-slicer.js';
import { sessionInputSchema } from '../core/schemas/session.js';
import { parseInSlices } from './parse-in-slices.js';

const noPause = async () => {};
const past = '2024-05-01T10:00:00Z';

/** Messages valid and not (AMS field names too: zod drops them), and bodies around them. */
const message = fc.oneof(
  fc.record({
    role: fc.constantFrom('user', 'assistant', 'system', 'tool', 'robot'),
    content: fc.oneof(fc.string({ maxLength: 5 }), fc.constant('  '), fc.integer()),
    created_at: fc.constantFrom(past, 'yesterday', undefined),
    createdAt: fc.constantFrom(past, 'yesterday', undefined),
    id: fc.constantFrom(undefined, '', 'a', 7),
    toolCallId: fc.constantFrom(undefined, 'call-1'),
  }),
  fc.anything({ maxDepth: 1 }),
);
const body = fc.oneof(
  fc.record(
    {
      messages: fc.oneof(fc.array(message, { maxLength: 8 }), fc.anything({ maxDepth: 1 })),
      memories: fc.constantFrom([], [{ text: '' }], 'x'),
      data: fc.constantFrom(null, {}, 3),
      context: fc.constantFrom(null, 'summary', 4),
      ttl_seconds: fc.constantFrom(null, 60, 0),
      ttlSeconds: fc.constantFrom(null, 60, 0),
      namespace: fc.constantFrom(null, 'ns', 5),
      unknown_field: fc.anything({ maxDepth: 0 }),
    },
    { requiredKeys: [] },
  ),
  fc.anything({ maxDepth: 1 }),
);

describe('parseInSlices', () => {
  it("gives zod's own result for a session input: data, or the same issues in the same order", async () => {
    const sliced = parseInSlices(sessionInputSchema, 'messages');
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const expected = sessionInputSchema.safeParse(input);
        const actual = await sliced.safeParse(input, noPause);
        expect(actual.success).toBe(expected.success);
        if (expected.success) expect(actual.data).toEqual(expected.data);
        else expect(actual.error?.issues).toEqual(expected.error.issues);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the array checks ahead of any item: an oversize array parses no item', async () => {
    let parsedItems = 0;
    const schema = z.object({
      list: z
        .array(z.string().refine(() => ++parsedItems > 0))
        .max(3)
        .default([]),
    });
    const result = await parseInSlices(schema, 'list').safeParse({ list: ['a', 'b', 'c', 'd'] }, noPause);
    expect(result.error?.issues.map((issue) => issue.code)).toEqual(['too_big']);
    expect(parsedItems).toBe(0);
  });

  it('pauses before every item, so other callbacks run while a long array is checked', async () => {
    const schema = z.object({ list: z.array(z.number()) });
    const turns = countLoopTurns();
    let pauses = 0;
    const pause = async () => {
      pauses++;
      if (pauses % 100 === 0) await nextTurn();
    };
    const list = Array.from({ length: 1_000 }, (_, index) => index);
    list[900] = Number.NaN;
    const result = await parseInSlices(schema, 'list').safeParse({ list }, pause);
    expect(pauses).toBe(1_000);
    expect(turns.stop()).toBeGreaterThan(0);
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([['list', 900]]);
  });

  it('refuses schemas it cannot reproduce exactly', () => {
    const refined = z.object({ list: z.array(z.number()) }).refine(() => true);
    expect(() => parseInSlices(refined as unknown as z.ZodObject, 'list')).toThrow(/refinements/);
    expect(() => parseInSlices(z.object({ list: z.array(z.number()).optional() }), 'list')).toThrow(
      /z\.array/,
    );
  });

  it('mapItems: safeParse, then each item mapped in order; zod issues win over a mapping error', async () => {
    const sliced = parseInSlices(sessionInputSchema, 'messages');
    await fc.assert(
      fc.asyncProperty(body, fc.nat(8), async (input, failAt) => {
        const expected = sessionInputSchema.safeParse(input);
        const mapped: number[] = [];
        const outcome = sliced
          .mapItems(input, noPause, (message, index) => {
            if (index === failAt) throw new Error(`mapping failed at ${index}`);
            mapped.push(index);
            return { index, content: message.content };
          })
          .then(
            (result) => ({ result }),
            (error: Error) => ({ error }),
          );
        const settled = await outcome;
        const messages = expected.success ? expected.data.messages : [];
        if (!expected.success) {
          expect('result' in settled && settled.result.error?.issues).toEqual(expected.error.issues);
        } else if (failAt < messages.length) {
          expect('error' in settled && settled.error.message).toBe(`mapping failed at ${failAt}`);
          expect(mapped).toEqual(messages.slice(0, failAt).map((_, index) => index));
        } else {
          const { messages: _parsed, ...rest } = expected.data;
          expect('result' in settled && settled.result.data).toEqual({
            ...rest,
            messages: messages.map((message, index) => ({ index, content: message.content })),
          });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('mapItems maps each item before the next is parsed, so parsed copies die young', async () => {
    const events: string[] = [];
    const schema = z.object({
      list: z.array(
        z.number().transform((n) => {
          events.push(`parse ${n}`);
          return n;
        }),
      ),
    });
    const result = await parseInSlices(schema, 'list').mapItems({ list: [1, 2, 3] }, noPause, (n) => {
      events.push(`map ${n}`);
      return n * 10;
    });
    expect(result.data).toEqual({ list: [10, 20, 30] });
    expect(events).toEqual(['parse 1', 'map 1', 'parse 2', 'map 2', 'parse 3', 'map 3']);
  });

  it('awaits neither a pause that goes on nor a mapping that answers at once', async () => {
    // An `await` per item kept each item's objects alive into the collector's next pause.
    const list = Array.from({ length: 2_000 }, (_, index) => index);
    const sliced = parseInSlices(z.object({ list: z.array(z.number()) }), 'list');
    const goOn = () => undefined;
    const settled = await microtasksUntilSettled(sliced.mapItems({ list }, goOn, (n) => n + 1));
    expect(settled).toBeLessThan(20);
    // An asynchronous mapping is still awaited, in order.
    const mapped = await sliced.mapItems({ list: [1, 2] }, goOn, async (n) => n * 2);
    expect(mapped.data).toEqual({ list: [2, 4] });
  });
});
