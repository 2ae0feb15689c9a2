import { describe, expect, it } from 'vitest';
import { bm25PruningPlan } from './bm25-pruning-plan.js';
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

const candidates = (dfs: Record<string, number>, limit = 100, changes: Partial<KnownStatistics> = {}) =>
  bm25PruningPlan(known(dfs, changes), limit)?.query ?? null;

describe('bm25PruningPlan', () => {
  it('scores only the records with the rare word when the common one cannot reach their scores', () => {
    expect(candidates({ common: 30_000, rare: 500 })).toBe("('rare')");
  });

  it('scores records with two common words when enough hold two of them', () => {
    // 625 records are expected to hold any two of them: each outscores one with a single word.
    expect(candidates({ a: 25_000, b: 25_000, c: 25_000 })).toBe("('a' & 'b') | ('a' & 'c') | ('b' & 'c')");
    // For the top 1,000 there are not enough of them: every match is scored.
    expect(candidates({ a: 25_000, b: 25_000, c: 25_000 }, 1_000)).toBeNull();
  });

  it('passes each bound and the threshold for the statement to check', () => {
    const plan = bm25PruningPlan(known({ common: 30_000, rare: 500 }, { impacts: [1.5, 1.2] }), 100);
    const idf = (df: number) => Math.log(1 + (1_000_000 - df + 0.5) / (df + 0.5));
    expect(plan?.lexemes).toEqual(['common', 'rare']);
    expect(plan?.bounds[0]).toBeGreaterThanOrEqual(idf(30_000) * 1.5);
    expect(plan?.bounds[1]).toBeGreaterThanOrEqual(idf(500) * 1.2);
    // Every record left out holds only "common", whose bound is below the threshold.
    expect(plan?.threshold).toBeGreaterThan(plan?.bounds[0] ?? Number.POSITIVE_INFINITY);
    expect(plan?.threshold).toBeLessThanOrEqual(plan?.bounds[1] ?? 0);
  });

  it('scores everything when too few records hold the rare words to fill the top', () => {
    expect(candidates({ common: 30_000, rare: 50 })).toBeNull();
    // With a second rare word there are enough of them.
    expect(candidates({ common: 30_000, rare: 50, other: 70 })).toBe("('rare') | ('other')");
  });

  it('scores everything when pruning would skip too few records to pay for itself', () => {
    expect(candidates({ common: 1_500, rare: 500 })).toBeNull();
  });

  it('weighs impacts: a rare word whose records are all long cannot rule out a common one', () => {
    expect(candidates({ common: 30_000, rare: 500 }, 100, { impacts: [2.2, 1] })).toBeNull();
  });

  it('bounds a lexeme whose impact is not known yet by the largest term factor there is', () => {
    // 2.2 × the common word's idf reaches the rare word's expected score: nothing is left out.
    expect(candidates({ common: 30_000, rare: 500 }, 100, { impacts: [null, null] })).toBeNull();
    expect(candidates({ common: 30_000, rare: 500 }, 100, { impacts: [1, null] })).toBe("('rare')");
  });

  it('plans nothing without complete statistics, or for very long queries', () => {
    const dfs = { common: 30_000, rare: 500 };
    expect(candidates(dfs, 100, { complete: false })).toBeNull();
    expect(candidates(dfs, 100, { revision: null })).toBeNull();
    expect(candidates({ rare: 500 })).toBeNull();
    expect(candidates(dfs, 0)).toBeNull();
    const long = Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`w${index}`, 30_000 + index]));
    expect(candidates(long)).toBeNull();
  });

  it('quotes lexemes as tsquery operands', () => {
    expect(candidates({ common: 30_000, "o'neil": 500 })).toBe("('o''neil')");
  });
});
