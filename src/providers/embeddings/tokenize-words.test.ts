import { describe, expect, it } from 'vitest';
import { tokenizeWords } from './tokenize-words.js';

describe('tokenizeWords', () => {
  it('lowercases and splits on punctuation and whitespace', () => {
    expect(tokenizeWords('Hello, World! (It works.)')).toEqual(['hello', 'world', 'it', 'works']);
  });

  it('expands contractions, straight or curly', () => {
    expect(tokenizeWords("I don't think we're done")).toEqual([
      'i',
      'do',
      'not',
      'think',
      'we',
      'are',
      'done',
    ]);
    expect(tokenizeWords('Can’t and won’t')).toEqual(['can', 'not', 'and', 'will', 'not']);
    expect(tokenizeWords("John's I'm you'll they've she'd")).toEqual([
      'john',
      'i',
      'am',
      'you',
      'will',
      'they',
      'have',
      'she',
      'would',
    ]);
  });

  it("keeps hyphenated words and names like o'brien whole", () => {
    expect(tokenizeWords("A well-known O'Brien -- re-embedding")).toEqual([
      'a',
      'well-known',
      "o'brien",
      're-embedding',
    ]);
  });

  it('keeps digits and non-Latin letters, normalizing compatibility forms', () => {
    expect(tokenizeWords('Café ﬁle 5 in 2024: Ｔｏｋｙｏ 東京')).toEqual([
      'café',
      'file',
      '5',
      'in',
      '2024',
      'tokyo',
      '東京',
    ]);
  });

  it('returns nothing for text without words', () => {
    expect(tokenizeWords('  ?! -- … ')).toEqual([]);
  });
});
