import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countLoopTurns } from '../../../test/support/loop-turns.js';
import { createEventLoopSlicer } from '../../core/event-loop-slicer.js';
import {
  decodeLargeArrays,
  encodeLargeArrays,
  holdsChunkedArray,
  holdsLargeArray,
  LARGE_ARRAY,
  LARGE_ARRAY_CHARS,
} from './chunked-arrays.js';

const record = fc.record({
  id: fc.string(),
  seq: fc.integer(),
  content: fc.string({ unit: 'grapheme' }),
  vector: fc.option(fc.float32Array({ maxLength: 4, noNaN: true }), { nil: undefined }),
});

/** Encodes, copies as postMessage would (structured clone), decodes. */
async function roundTrip(value: unknown): Promise<unknown> {
  const transfer: ArrayBuffer[] = [];
  const encoded = await encodeLargeArrays(value, transfer, 0);
  return decodeLargeArrays(structuredClone(encoded, { transfer }), 0);
}

describe('large arrays in chunks', () => {
  it('round-trips arrays around the threshold, given whole or as a property', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: LARGE_ARRAY - 2, max: LARGE_ARRAY * 2 + 3 }),
        record,
        async (length, item) => {
          const items = Array.from({ length }, (_, index) => ({ ...item, seq: index }));
          expect(await roundTrip(items)).toEqual(items);
          const write = { messages: items, data: { a: 1 }, ttlSeconds: null };
          expect(await roundTrip(write)).toEqual(write);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('encodes only arrays over the threshold, and leaves other values as they are', async () => {
    const small = Array.from({ length: LARGE_ARRAY }, (_, index) => index);
    const large = [...small, LARGE_ARRAY];
    expect(holdsLargeArray(small)).toBe(false);
    expect(holdsLargeArray(large)).toBe(true);
    expect(holdsLargeArray({ messages: large })).toBe(true);
    expect(holdsLargeArray({ nested: { messages: large } })).toBe(false);
    const transfer: ArrayBuffer[] = [];
    expect(await encodeLargeArrays(small, transfer, 0)).toBe(small);
    const encoded = await encodeLargeArrays({ messages: large, other: 'x' }, transfer, 0);
    expect(holdsChunkedArray(encoded)).toBe(true);
    expect(encoded).toMatchObject({ other: 'x' });
    expect(transfer.length).toBe(Math.ceil(large.length / 1_000));
  });

  it('lets the event loop run between chunks when its slice has passed', async () => {
    const items = Array.from({ length: 10_000 }, (_, index) => ({ index, text: `item ${index}` }));
    // Counted on every turn of the loop: a timer's count depends on how fast the machine is.
    const turns = countLoopTurns();
    try {
      const transfer: ArrayBuffer[] = [];
      const encoded = await encodeLargeArrays(items, transfer, 0);
      const encodingTurns = turns.turns;
      expect(await decodeLargeArrays(encoded, 0)).toEqual(items);
      expect(encodingTurns).toBeGreaterThan(0);
      expect(turns.turns).toBeGreaterThan(encodingTurns);
    } finally {
      turns.stop();
    }
  });

  it('takes turns with other sliced work: one slice per turn of the loop', async () => {
    // 10 chunks, decoded with a yield after each, beside another request's 10 slices. A turn of
    // the loop is counted by an immediate that queues itself again: two slices resumed in the same
    // turn (each with an immediate of its own) would run back to back, holding the loop for both.
    const items = Array.from({ length: 10_000 }, (_, index) => ({ index }));
    const encoded = await encodeLargeArrays(items, [], Number.POSITIVE_INFINITY);
    const turns = countLoopTurns();
    const other = async () => {
      const slicer = createEventLoopSlicer(0);
      for (let slice = 0; slice < 10; slice++) await slicer.pause();
    };
    const [decoded] = await Promise.all([decodeLargeArrays(encoded, 0), other()]);
    expect(decoded).toEqual(items);
    expect(turns.stop()).toBeGreaterThanOrEqual(19);
  });

  it('sends a short array of long strings in chunks of about 256K characters', async () => {
    // 300 versions of a memory at 20,000 characters: 6,000,000 characters in 300 items.
    const versions = Array.from({ length: 300 }, (_, index) => ({
      id: 'm',
      version: index,
      text: 'x'.repeat(20_000),
    }));
    expect(holdsLargeArray(versions)).toBe(true);
    expect(holdsLargeArray(versions.slice(0, 50))).toBe(false);
    expect(50 * 20_000).toBeLessThanOrEqual(LARGE_ARRAY_CHARS);
    const transfer: ArrayBuffer[] = [];
    const encoded = await encodeLargeArrays(versions, transfer, 0);
    // 14 items (280,000 characters) per chunk: 22 chunks, none over ~300K characters of text.
    expect(transfer.length).toBe(Math.ceil(300 / 14));
    expect(await decodeLargeArrays(structuredClone(encoded, { transfer }), 0)).toEqual(versions);
  });
});
