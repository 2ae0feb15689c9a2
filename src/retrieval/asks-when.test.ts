import { describe, expect, it } from 'vitest';
import { asksWhen, statesWhen } from './asks-when.js';

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
});
