import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amsDateTime } from './ams-datetime.js';

describe('amsDateTime', () => {
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
