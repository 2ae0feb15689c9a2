import { describe, expect, it } from 'vitest';
import { extractQueryDates } from './extract-query-dates.js';

const day = (iso: string) => ({ start: Date.parse(iso), end: Date.parse(iso) + 86_400_000 });

describe('extractQueryDates', () => {
  it('finds day, month and year spans and removes them from the text', () => {
    expect(extractQueryDates('What did Nate do for Joanna on 25 May, 2022?')).toEqual({
      spans: [day('2022-05-25T00:00:00Z')],
      text: 'What did Nate do for Joanna on ?',
    });
    expect(extractQueryDates('Who came to dinner on May 3rd, 2023').spans).toEqual([
      day('2023-05-03T00:00:00Z'),
    ]);
    expect(extractQueryDates('notes from 2024-02-29').spans).toEqual([day('2024-02-29T00:00:00Z')]);
    expect(extractQueryDates('What setback did Melanie face in October 2023?')).toEqual({
      spans: [{ start: Date.parse('2023-10-01T00:00:00Z'), end: Date.parse('2023-11-01T00:00:00Z') }],
      text: 'What setback did Melanie face in ?',
    });
    expect(extractQueryDates('How many times did she go to the beach in 2023?').spans).toEqual([
      { start: Date.parse('2023-01-01T00:00:00Z'), end: Date.parse('2024-01-01T00:00:00Z') },
    ]);
    expect(extractQueryDates('between Jan 2023 and Sept 2023').spans).toHaveLength(2);
  });

  it('leaves queries without a calendar date untouched', () => {
    for (const query of [
      'May I ask what we discussed?',
      'the 2023 budget',
      'room 1200 on floor 12',
      'What did I do last week?',
    ]) {
      expect(extractQueryDates(query)).toEqual({ spans: [], text: query });
    }
    // An impossible day still names its month.
    expect(extractQueryDates('meeting on 31 February, 2023').spans).toEqual([
      { start: Date.parse('2023-02-01T00:00:00Z'), end: Date.parse('2023-03-01T00:00:00Z') },
    ]);
  });
});
