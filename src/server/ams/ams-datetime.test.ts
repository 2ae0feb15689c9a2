import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amsDateTime, canonicalIsoText } from './ams-datetime.js';

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

describe('amsDateTime', () => {
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

  it('answers what the general path answers for dates in that form', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const text = date.toISOString();
          expect(amsDateTime().parse(text)).toBe(text);
          // The same instant written another way takes the general path to the same answer.
          expect(amsDateTime().parse(text.replace('T', ' ').replace('Z', '+00:00'))).toBe(text);
        },
      ),
      { numRuns: 500 },
    );
    expect(amsDateTime().safeParse('2025-02-30T00:00:00.000Z').success).toBe(false);
  });

  it('keeps every year from 1 to 9999 as written, 1-99 included', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0001-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const text = date.toISOString();
          // Naive, with a space and without milliseconds when they are zero: the general path.
          const general = text
            .replace('T', ' ')
            .replace('Z', '')
            .replace(/\.000$/, '');
          expect(amsDateTime().parse(general)).toBe(text);
          expect(amsDateTime().parse(text.slice(0, 10))).toBe(`${text.slice(0, 10)}T00:00:00.000Z`);
        },
      ),
      { numRuns: 1_000 },
    );
    expect(amsDateTime().parse('0050-06-15T12:00:00Z')).toBe('0050-06-15T12:00:00.000Z');
    expect(amsDateTime().parse('0001-01-01')).toBe('0001-01-01T00:00:00.000Z');
    expect(amsDateTime().safeParse('0000-12-31T00:00:00Z').success).toBe(false);
  });
});
