import { describe, expect, it } from 'vitest';
import { analyzeText } from './analyze-text.js';

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
});
