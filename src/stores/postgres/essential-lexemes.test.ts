import { describe, expect, it } from 'vitest';
import { essentialLexemes } from './essential-lexemes.js';
import type { KnownStatistics } from './text-statistics-cache.js';

/** Statistics of a 1,000,000-record tenant for lexemes with these document frequencies (impact 1). */
const known = (dfs: Record<string, number>, changes: Partial<KnownStatistics> = {}): KnownStatistics => ({
  revision: 3,
  n: 1_000_000,
  avgdl: 12,
  lexemes: Object.keys(dfs),
  dfs: Object.values(dfs),
  impacts: Object.values(dfs).map(() => 1),
  unstemmed: [],
  complete: true,
  ...changes,
});

describe('essentialLexemes', () => {
  it('scores the rare words first when the common ones cannot reach their scores', () => {
    expect(essentialLexemes(known({ common: 30_000, rare: 500 }), 100)).toEqual(['rare']);
    // Two rare words are both needed: either one's bound alone reaches the other's scores.
    expect(essentialLexemes(known({ common: 200_000, rare: 500, rarer: 300 }), 100)).toEqual([
      'rarer',
      'rare',
    ]);
  });

  it('scores everything when the essential records cannot fill the top', () => {
    expect(essentialLexemes(known({ common: 30_000, rare: 50 }), 100)).toBeNull();
    // With a second rare word there are enough of them.
    expect(essentialLexemes(known({ common: 30_000, rare: 50, other: 70 }), 100)).toEqual(['rare', 'other']);
  });

  it('scores everything when pruning would skip too few records to pay for itself', () => {
    expect(essentialLexemes(known({ common: 1_500, rare: 500 }), 100)).toBeNull();
  });

  it('scores everything when the other words could still reach the top', () => {
    // Three words equally frequent: a record with the last one can match one with any other.
    expect(essentialLexemes(known({ a: 3_000, b: 3_000, c: 3_000 }), 100)).toBeNull();
    // Slightly rarer first words: a record with only the third scores below one with either.
    expect(essentialLexemes(known({ a: 3_000, b: 4_000, c: 5_000 }), 100)).toEqual(['a', 'b']);
    // Common words: enough records are expected to hold two of them to outscore any with the third.
    expect(essentialLexemes(known({ a: 25_000, b: 25_000, c: 25_000 }), 100)).toEqual(['a', 'b']);
    expect(essentialLexemes(known({ a: 25_000, b: 25_000, c: 25_000 }), 1_000)).toBeNull();
  });

  it('weighs impacts: a rare word whose records are all long cannot rule out a common one', () => {
    const plain = known({ common: 30_000, rare: 500 });
    expect(essentialLexemes(plain, 100)).toEqual(['rare']);
    expect(essentialLexemes({ ...plain, impacts: [2.2, 1] }, 100)).toBeNull();
  });

  it('plans nothing without complete statistics', () => {
    const dfs = { common: 30_000, rare: 500 };
    expect(essentialLexemes(known(dfs, { complete: false }), 100)).toBeNull();
    expect(essentialLexemes(known(dfs, { revision: null }), 100)).toBeNull();
    expect(essentialLexemes(known({ rare: 500 }), 100)).toBeNull();
    expect(essentialLexemes(known(dfs), 0)).toBeNull();
  });
});
