import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactTokenCounts } from '../../../test/support/exact-token-counts.js';
import { nextLineCut } from './line-cuts.js';

const encoders = exactTokenCounts;

/** The characters around line ends that the pre-tokenizers treat differently. */
const alphabet = [
  'a',
  'B',
  'é',
  '中',
  '😀',
  '1',
  '23',
  ' ',
  '  ',
  '\n',
  '\r',
  '\t',
  '/',
  '.',
  '-',
  "'",
  "'s",
  ':',
  '\u00a0',
  '- item',
  'The user',
  'ok.',
  '\\',
  '"',
  '#',
  '*',
];
const texts = fc
  .array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 120 })
  .map((pieces) => pieces.join(''));

function parts(text: string): string[] {
  const found: string[] = [];
  let start = 0;
  for (let cut = nextLineCut(text); cut !== -1; cut = nextLineCut(text, cut)) {
    found.push(text.slice(start, cut));
    start = cut;
  }
  found.push(text.slice(start));
  return found;
}

const cuts = (text: string) =>
  parts(text)
    .slice(0, -1)
    .map((_, index, all) => all.slice(0, index + 1).join('').length);

describe('nextLineCut', () => {
  it('cuts after a newline followed by anything but whitespace and a slash', () => {
    expect(cuts('a\nb\n c\n/d\n\ne\n')).toEqual([2, 11]);
    expect(nextLineCut('no newline')).toBe(-1);
  });

  for (const [encoding, count] of Object.entries(encoders)) {
    it(`gives parts whose ${encoding} counts add up to the whole text's`, () => {
      fc.assert(
        fc.property(texts, (text) => {
          const sum = parts(text).reduce((total, part) => total + count(part), 0);
          expect(sum).toBe(count(text));
        }),
        { numRuns: 3_000 },
      );
    });
  }

  it('would be wrong to cut before a slash or whitespace (why they are excluded)', () => {
    // A punctuation piece takes the newline and, in o200k_base, a slash after it.
    const text = 'ok.\n/';
    const wrong = encoders.o200k_base('ok.\n') + encoders.o200k_base('/');
    expect(wrong).not.toBe(encoders.o200k_base(text));
    expect(nextLineCut(text)).toBe(-1);
  });
});
