import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyInSlices } from './stringify-in-slices.js';

const noPause = async () => {};

describe('stringifyInSlices', () => {
  it('writes what JSON.stringify writes, whatever the other members and items are', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.constant(undefined))),
        fc.string(),
        fc.array(fc.oneof(fc.jsonValue(), fc.constant(undefined))),
        async (object, key, items) => {
          const whole = { ...object, [key]: items };
          expect(await stringifyInSlices(whole, key, (item) => item, noPause)).toBe(JSON.stringify(whole));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('maps each item and pauses before each', async () => {
    let pauses = 0;
    const text = await stringifyInSlices(
      { a: 1, list: [1, 2, 3], b: 'x' },
      'list',
      (n: number) => n * 2,
      async () => {
        pauses++;
      },
    );
    expect(text).toBe('{"a":1,"list":[2,4,6],"b":"x"}');
    expect(pauses).toBe(3);
  });
});
