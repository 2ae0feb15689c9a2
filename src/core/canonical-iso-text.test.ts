import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalIsoText } from './canonical-iso-text.js';

/** Text shaped like `Date#toISOString`, with every field free to be out of range. */
const isoShaped = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 25 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 999 }),
  )
  .map(
    ([year, month, day, hour, minute, second, ms]) =>
      `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T` +
      `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}.` +
      `${String(ms).padStart(3, '0')}Z`,
  );
/** Small edits of such text: a character changed, dropped or added. */
const nearIso = fc.oneof(
  isoShaped,
  fc
    .tuple(isoShaped, fc.nat(23), fc.constantFrom('', 'z', ' ', '+', 'x', '9', 'T', '-'))
    .map(([text, at, char]) => text.slice(0, at) + char + text.slice(at + 1)),
  isoShaped.map((text) => `${text} `),
);

describe('canonicalIsoText', () => {
  it('takes text already in toISOString form as it is, and nothing else', () => {
    fc.assert(
      fc.property(nearIso, (text) => {
        const time = Date.parse(text);
        // V8 rolls an impossible date over (2025-02-30 → March 2): equal text means a real date.
        const canonical =
          text.length === 24 &&
          text.endsWith('Z') &&
          !Number.isNaN(time) &&
          new Date(time).toISOString() === text &&
          Number(text.slice(0, 4)) >= 1000;
        expect(canonicalIsoText(text)).toBe(canonical ? text : undefined);
      }),
      { numRuns: 5_000 },
    );
  });
});
