import { describe, expect, it } from 'vitest';
import { resolveRelativeDates } from './resolve-relative-dates.js';

/** Spans as [first day, day after] in ISO dates, for readable expectations. */
const resolve = (text: string, at: string) =>
  resolveRelativeDates(text, Date.parse(at)).map((span) => [
    new Date(span.start).toISOString().slice(0, 10),
    new Date(span.end).toISOString().slice(0, 10),
  ]);

// Wednesday, 8 May 2024, in the afternoon.
const WEDNESDAY = '2024-05-08T14:30:00Z';

describe('resolveRelativeDates', () => {
  it('reads days relative to the memory’s date', () => {
    expect(resolve('We went camping yesterday!', WEDNESDAY)).toEqual([['2024-05-07', '2024-05-08']]);
    expect(resolve('Last night was fun', WEDNESDAY)).toEqual([['2024-05-07', '2024-05-08']]);
    expect(resolve('the day before yesterday', WEDNESDAY)).toEqual([['2024-05-06', '2024-05-07']]);
    expect(resolve('See you tomorrow', WEDNESDAY)).toEqual([['2024-05-09', '2024-05-10']]);
    expect(resolve('I adopted her 3 days ago', WEDNESDAY)).toEqual([['2024-05-05', '2024-05-06']]);
    expect(resolve('a couple of days ago', WEDNESDAY)).toEqual([['2024-05-05', '2024-05-07']]);
    expect(resolve('two weeks ago', WEDNESDAY)).toEqual([['2024-04-21', '2024-04-28']]);
  });

  it('reads weekdays, weeks, weekends and months', () => {
    expect(resolve('I won last Friday', WEDNESDAY)).toEqual([['2024-05-03', '2024-05-04']]);
    expect(resolve('next Monday', WEDNESDAY)).toEqual([['2024-05-13', '2024-05-14']]);
    expect(resolve('last Wednesday', WEDNESDAY)).toEqual([['2024-05-01', '2024-05-02']]);
    expect(resolve('last weekend', WEDNESDAY)).toEqual([['2024-05-04', '2024-05-06']]);
    expect(resolve('this weekend', WEDNESDAY)).toEqual([['2024-05-11', '2024-05-13']]);
    expect(resolve('this weekend', '2024-05-12T10:00:00Z')).toEqual([['2024-05-11', '2024-05-13']]);
    expect(resolve('last week', WEDNESDAY)).toEqual([['2024-05-01', '2024-05-08']]);
    expect(resolve('next week', WEDNESDAY)).toEqual([['2024-05-09', '2024-05-16']]);
    expect(resolve('last month', WEDNESDAY)).toEqual([['2024-04-01', '2024-05-01']]);
    expect(resolve('next month', '2024-12-20T00:00:00Z')).toEqual([['2025-01-01', '2025-02-01']]);
  });

  it('reads today, this week or month, months and years ago, and last, this or next year', () => {
    expect(resolve('I baked a pie today', WEDNESDAY)).toEqual([['2024-05-08', '2024-05-09']]);
    expect(resolve('the game is tonight', WEDNESDAY)).toEqual([['2024-05-08', '2024-05-09']]);
    expect(resolve('busy this week', WEDNESDAY)).toEqual([['2024-05-05', '2024-05-12']]);
    expect(resolve('this month was hard', WEDNESDAY)).toEqual([['2024-05-01', '2024-06-01']]);
    expect(resolve('I moved here 3 months ago', WEDNESDAY)).toEqual([['2024-02-01', '2024-03-01']]);
    expect(resolve('I started surfing five years ago', WEDNESDAY)).toEqual([['2019-01-01', '2020-01-01']]);
    expect(resolve('a year ago', WEDNESDAY)).toEqual([['2023-01-01', '2024-01-01']]);
    expect(resolve('We went to Paris last year', WEDNESDAY)).toEqual([['2023-01-01', '2024-01-01']]);
    expect(resolve('next year', WEDNESDAY)).toEqual([['2025-01-01', '2026-01-01']]);
    expect(resolve('this year', WEDNESDAY)).toEqual([['2024-01-01', '2025-01-01']]);
  });

  it('finds every expression once, and nothing in plain text', () => {
    expect(resolve('Last weekend, not last week: yesterday too.', WEDNESDAY)).toEqual([
      ['2024-05-07', '2024-05-08'],
      ['2024-05-04', '2024-05-06'],
      ['2024-05-01', '2024-05-08'],
    ]);
    expect(resolve('We played frisbee until sunset.', WEDNESDAY)).toEqual([]);
    expect(resolve('the weekend was lasting', WEDNESDAY)).toEqual([]);
  });
});
