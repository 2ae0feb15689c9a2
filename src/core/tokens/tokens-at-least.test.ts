import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactTokenCounts } from '../../../test/support/exact-token-counts.js';
import { boundedCounter } from './token-counter.js';
import { tokensAtLeast } from './tokens-at-least.js';

// Words, numbers, punctuation, every kind of whitespace the pre-tokenizers split on, line breaks
// before slashes (o200k's punctuation piece swallows those), marks, emoji and CJK.
const fragment = fc.oneof(
  fc.constantFrom(
    ' ',
    '  ',
    '\t',
    '\n',
    '\r\n',
    '\u00a0',
    '\u3000',
    '/',
    '\n/',
    ' !\n/\n/',
    "it's",
    'Hello',
    'world',
    'x',
    '12345',
    '...',
    '—',
    'é\u0301',
    '😀👍🏽',
    '漢字',
    '<|endoftext|>',
  ),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);
const text = fc.array(fragment, { maxLength: 60 }).map((parts) => parts.join(''));

describe('tokensAtLeast', () => {
  it('never exceeds the exact count, nor the bounded counter’s (o200k_base and cl100k_base)', () => {
    const counters = (['o200k_base', 'cl100k_base'] as const).map((encoding) => ({
      exact: exactTokenCounts[encoding],
      bounded: boundedCounter(encoding, exactTokenCounts[encoding]),
    }));
    fc.assert(
      fc.property(text, (value) => {
        const least = tokensAtLeast(value);
        for (const { exact, bounded } of counters) {
          expect(least).toBeLessThanOrEqual(exact(value));
          expect(least).toBeLessThanOrEqual(bounded.count(value));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('stops once past `above`, and says so by a number above it', () => {
    fc.assert(
      fc.property(text, fc.nat({ max: 80 }), (value, above) => {
        const whole = tokensAtLeast(value);
        const early = tokensAtLeast(value, above);
        if (whole > above) expect(early).toBe(above + 1);
        else expect(early).toBe(whole);
      }),
    );
  });

  it('counts word starts: one per word of prose, none for whitespace', () => {
    expect(tokensAtLeast('')).toBe(0);
    expect(tokensAtLeast('   \n\t ')).toBe(0);
    expect(tokensAtLeast('Employees book trains for trips.')).toBe(5);
    expect(tokensAtLeast(' leading and trailing  ')).toBe(3);
    // A slash after a line break may end o200k's punctuation piece: not a start.
    expect(tokensAtLeast('!\n/')).toBe(1);
  });

  it('lets the bounded counter refuse a long text over its limit without encoding any of it', () => {
    const encoded: string[] = [];
    const exact = exactTokenCounts.o200k_base;
    const counter = boundedCounter('o200k_base', (piece) => {
      encoded.push(piece);
      return exact(piece);
    });
    const memory = 'Employees book trains for trips under four hours. '.repeat(400);
    const over = counter.countUpTo?.(memory, 500) ?? 0;
    expect(over).toBeGreaterThan(500);
    expect(encoded).toEqual([]);
    // Within reach of the limit it is encoded, and exact when at most the limit.
    expect(counter.countUpTo?.(memory, 100_000)).toBe(counter.count(memory));
    expect(encoded.length).toBeGreaterThan(0);
  });
});
