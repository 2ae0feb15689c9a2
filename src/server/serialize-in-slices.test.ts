import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { microtasksUntilSettled } from '../../test/support/microtasks-until-settled.js';
import { serializeAroundList, serializeInSlices, serializeListItems } from './serialize-in-slices.js';

const noPause = async () => {};

describe('serializeInSlices', () => {
  it('writes the bytes of JSON.stringify, whatever the other members and items are', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.constant(undefined))),
        fc.string(),
        fc.array(fc.oneof(fc.jsonValue(), fc.constant(undefined))),
        async (object, key, items) => {
          const whole = { ...object, [key]: items };
          const bytes = Buffer.concat(await serializeInSlices(whole, key, (item) => item, noPause));
          expect(bytes.equals(Buffer.from(JSON.stringify(whole)))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('encodes a long answer in chunks, characters outside the BMP included', async () => {
    const items = Array.from({ length: 3_000 }, (_, index) => ({
      index,
      text: `${'é😀'.repeat(20)} ${index}`,
    }));
    const whole = { before: 'a', items, after: 'z' };
    const chunks = await serializeInSlices(whole, 'items', (item) => item, noPause);
    const bytes = Buffer.concat(chunks);
    expect(bytes.length).toBeGreaterThan(3 * 64 * 1024);
    expect(bytes.equals(Buffer.from(JSON.stringify(whole)))).toBe(true);
    // Never one buffer of the whole: chunks of about 64 KB (an item may carry one past it).
    expect(chunks.length).toBeGreaterThan(3);
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThan(2 * 64 * 1024 + 1_000);
  });

  it('maps each item and pauses before each', async () => {
    let pauses = 0;
    const [bytes] = await serializeInSlices(
      { a: 1, list: [1, 2, 3], b: 'x' },
      'list',
      (n: number) => n * 2,
      async () => {
        pauses++;
      },
    );
    expect(bytes?.toString()).toBe('{"a":1,"list":[2,4,6],"b":"x"}');
    expect(pauses).toBe(3);
  });

  it('awaits no pause that goes on: no turn of the microtask queue per item', async () => {
    const list = Array.from({ length: 2_000 }, (_, index) => index);
    const serializing = serializeInSlices(
      { list },
      'list',
      (n: number) => n,
      () => undefined,
    );
    expect(await microtasksUntilSettled(serializing)).toBeLessThan(20);
    expect(Buffer.concat(await serializing).toString()).toBe(JSON.stringify({ list }));
  });
});

describe('serializeListItems and serializeAroundList', () => {
  it("write serializeInSlices's bytes, the list's chunks each in a buffer of its own", async () => {
    const items = Array.from({ length: 3_000 }, (_, index) => ({ index, text: `é😀"\\${'x'.repeat(50)}` }));
    const toItem = (item: (typeof items)[number]) => (item.index === 7 ? undefined : item);
    const object = { messages: items, total: 3, skipped: undefined, after: 'ü' };
    const listChunks = serializeListItems(items, toItem);
    expect(listChunks.length).toBeGreaterThan(1);
    expect(
      listChunks.every((chunk) => chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength),
    ).toBe(true);
    const around = await serializeAroundList(object, 'messages', listChunks);
    const sliced = await serializeInSlices(object, 'messages', toItem, () => undefined);
    expect(Buffer.concat(around).toString()).toBe(JSON.stringify({ ...object, messages: items.map(toItem) }));
    expect(Buffer.concat(around).equals(Buffer.concat(sliced))).toBe(true);
  });
});
