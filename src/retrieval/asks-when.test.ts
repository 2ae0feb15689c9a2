import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asksWhen, statesWhen } from './asks-when.js';
import { extractQueryDates } from './extract-query-dates.js';
import { resolveRelativeDates } from './resolve-relative-dates.js';

describe('asksWhen', () => {
  it('recognizes questions that ask for a time by their first words', () => {
    expect(asksWhen('When did Ada move to Lisbon?')).toBe(true);
    expect(asksWhen('how long ago was the trip?')).toBe(true);
    expect(asksWhen('What year did Bob start surfing?')).toBe(true);
    expect(asksWhen('Which month is the wedding?')).toBe(true);
    expect(asksWhen('What did Ada do when she was in Paris?')).toBe(false);
    expect(asksWhen('Where does Ada live?')).toBe(false);
  });
});

describe('statesWhen', () => {
  it('is true of text that names a calendar or a relative date', () => {
    expect(statesWhen('We adopted her on 3 May 2023.')).toBe(true);
    expect(statesWhen('I dyed my hair last week!')).toBe(true);
    expect(statesWhen('I started surfing five years ago.')).toBe(true);
    expect(statesWhen('I love surfing, it is so calming.')).toBe(false);
  });

  it('answers as the two date readers do: its quick screen never rules out a stated date', () => {
    const pieces = [
      'the day before yesterday',
      'Yesterday',
      'last night',
      'tomorrow',
      'today',
      'tonight',
      'this morning',
      'this Evening',
      'two months ago',
      '3 years ago',
      'a week ago',
      'five days ago',
      'a couple of days ago',
      'some days ago',
      'last weekend',
      'next weekend',
      'last week',
      'next week',
      'last month',
      'next month',
      'this month',
      'this week',
      'last year',
      'next year',
      'this year',
      'last Friday',
      'next monday',
      'this past Sunday',
      'this coming Tuesday',
      '3 May 2023',
      'May 3, 2023',
      '2023-05-03',
      'July 2023',
      'in 2021',
      'during 1999',
      'we went surfing',
      'Ada',
      'the lake',
      'and',
      'pottery',
      'a long walk home',
      '!',
      ',',
    ];
    const full = (text: string) =>
      resolveRelativeDates(text, 0).length > 0 || extractQueryDates(text).spans.length > 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 6 }), fc.string(), (parts, noise) => {
        const text = `${parts.join(' ')} ${noise}`;
        expect(statesWhen(text)).toBe(full(text));
      }),
      { numRuns: 500 },
    );
  });
});
