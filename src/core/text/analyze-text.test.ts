import { stemmer } from 'stemmer';
import { describe, expect, it } from 'vitest';
import { analyzeText, stem } from './analyze-text.js';

describe('analyzeText', () => {
  it('lowercases, strips diacritics and stopwords, stems, and drops contraction tails', () => {
    expect(analyzeText("Caroline's café visits were running late, weren't they?")).toEqual([
      'carolin',
      'cafe',
      'visit',
      'run',
      'late',
      'weren',
    ]);
  });

  it('gives the same terms when a text is analyzed again (stems are remembered)', () => {
    const text = 'Generalizations about relational databases: generalization, relations, relational.';
    expect(analyzeText(text)).toEqual(analyzeText(text));
    expect(analyzeText(text)).toEqual(['gener', 'relat', 'databas', 'gener', 'relat', 'relat']);
  });
});

describe('stem', () => {
  it('is the Porter stemmer, on a first and a repeated call', () => {
    const words = ['running', 'relational', 'constructor', '__proto__', 'hasOwnProperty', 'ponies', 'ponies'];
    for (const word of [...words, ...words]) expect(stem(word)).toBe(stemmer(word));
  });

  it('keeps words over 64 characters as they are, as SQLite FTS5 porter does', () => {
    const longest = `${'x'.repeat(60)}ings`;
    expect(stem(longest)).toBe(stemmer(longest));
    expect(stem(longest)).not.toBe(longest);
    const longer = `${'x'.repeat(61)}ings`;
    expect(stem(longer)).toBe(longer);
  });
});
