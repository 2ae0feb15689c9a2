import fc from 'fast-check';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { exactTokenCounts } from '../../../test/support/exact-token-counts.js';
import { memoizePieces } from './piece-memo.js';

const encodings = [
  { name: 'o200k_base', split: O200K_TOKEN_SPLIT_REGEX, count: exactTokenCounts.o200k_base },
  { name: 'cl100k_base', split: CL100K_TOKEN_SPLIT_REGEX, count: exactTokenCounts.cl100k_base },
];

// What the patterns tell apart: whitespace runs before words and line ends, contractions in both
// cases, digit runs, letters of every case and script, marks, punctuation, `/`, special tokens.
const fragments = [
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\n\n',
  ' \n ',
  '\u00a0',
  "'s",
  "'LL",
  "'ve",
  'It',
  'user',
  'USER',
  'McDonald',
  'café',
  'Straße',
  '東京',
  'e\u0301',
  '😀',
  '7',
  '12345',
  '3.14',
  ',',
  '...',
  '/',
  '//',
  '->',
  '-',
  '(',
  ')',
  '<|endoftext|>',
  '"',
  '#',
];
const text = fc.array(fc.constantFrom(...fragments), { maxLength: 40 }).map((parts) => parts.join(''));

describe('memoizePieces', () => {
  for (const { name, split, count } of encodings) {
    it(`counts every text as ${name} counts it whole, from a fresh memo and a warm one`, () => {
      const warm = memoizePieces(split, count);
      fc.assert(
        fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), (texts) => {
          const fresh = memoizePieces(split, count);
          for (const each of texts) {
            expect(fresh(each)).toBe(count(each));
            expect(warm(each)).toBe(count(each));
          }
        }),
        { numRuns: 400 },
      );
    });
  }

  it('asks the encoding again only for pieces it has not seen, and hands a text that keeps missing over whole', () => {
    const { split, count } = encodings[0] as (typeof encodings)[number];
    const asked: string[] = [];
    const memoized = memoizePieces(split, (piece) => {
      asked.push(piece);
      return count(piece);
    });
    const line = '- The user mentioned a kayak trip, yesterday.\n';
    expect(memoized(line)).toBe(count(line));
    const firstTime = asked.length;
    expect(firstTime).toBeGreaterThan(5);
    expect(memoized(line)).toBe(count(line));
    expect(asked.length).toBe(firstTime);
    // Forty new words: sixteen are asked one by one, then the rest of the text in one call.
    const novel = Array.from(
      { length: 40 },
      (_, index) => `w${String.fromCharCode(97 + (index % 26))}${index}x`,
    ).join(' ');
    asked.length = 0;
    expect(memoized(novel)).toBe(count(novel));
    expect(asked.length).toBe(17);
    expect(asked.at(-1)?.length).toBeGreaterThan(40);
  });
});
