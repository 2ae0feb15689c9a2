import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_QUERY_CHARS, searchQueryOf } from './search-query-of.js';

describe('searchQueryOf', () => {
  it('keeps a message a search takes as it is', () => {
    const message = 'x'.repeat(MAX_QUERY_CHARS);
    expect(searchQueryOf(message)).toBe(message);
  });

  it('fits a longer one from its start and its end, never splitting a word', () => {
    const question = 'Which seat does Ada prefer on trains?';
    const pasted = 'Travel policy paragraph with several words. '.repeat(2_000);
    const before = searchQueryOf(`${question} ${pasted}`);
    const after = searchQueryOf(`${pasted}${question}`);
    for (const query of [before, after]) {
      expect(query.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
      expect(query.length).toBeGreaterThan(MAX_QUERY_CHARS / 2);
      for (const word of query.split(/\s+/).filter(Boolean)) {
        expect([
          'Travel',
          'policy',
          'paragraph',
          'with',
          'several',
          'words.',
          ...question.split(' '),
        ]).toContain(word);
      }
    }
    expect(before.startsWith(question)).toBe(true);
    expect(after.endsWith(question)).toBe(true);
  });

  it('is always within the limit, also without whitespace', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: MAX_QUERY_CHARS - 5, maxLength: MAX_QUERY_CHARS * 3 }),
        (message) => {
          const query = searchQueryOf(message);
          expect(query.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
          if (message.length <= MAX_QUERY_CHARS) expect(query).toBe(message);
        },
      ),
      { numRuns: 50 },
    );
  });
});
