import { describe, expect, it } from 'vitest';
import { TextStatisticsCache } from './text-statistics-cache.js';

const learned = (revision: number, dfs: Record<string, number>, stems: Record<string, string[]> | null) => ({
  revision,
  n: 10,
  avgdl: 3.5,
  lexemes: Object.keys(dfs),
  dfs: Object.values(dfs),
  impacts: Object.values(dfs).map((df) => 1 + df / 10),
  stems,
});

describe('TextStatisticsCache', () => {
  it('knows nothing of a tenant it has not seen, and asks for every word', () => {
    expect(new TextStatisticsCache().known('t', ['apples', 'pie'])).toEqual({
      revision: null,
      n: 0,
      avgdl: 1,
      lexemes: [],
      dfs: [],
      impacts: [],
      unstemmed: ['apples', 'pie'],
      complete: false,
    });
  });

  it('passes the frequencies of the lexemes of known words, once each', () => {
    const cache = new TextStatisticsCache();
    cache.learn('t', learned(7, { appl: 4, pie: 2 }, { apples: ['appl'], apple: ['appl'], pie: ['pie'] }));
    expect(cache.known('t', ['apples', 'apple', 'tart'])).toEqual({
      revision: 7,
      n: 10,
      avgdl: 3.5,
      lexemes: ['appl'],
      dfs: [4],
      impacts: [1.4],
      unstemmed: ['tart'],
      complete: false,
    });
    // Stems are the stemmer's, not a tenant's: another tenant reuses them, with no frequencies yet.
    expect(cache.known('u', ['apples'])).toMatchObject({ revision: null, lexemes: [], unstemmed: [] });
  });

  it('adds to the frequencies of one revision and starts over at another', () => {
    const cache = new TextStatisticsCache();
    const stems = { apple: ['appl'], pie: ['pie'] };
    cache.learn('t', learned(7, { appl: 4 }, stems));
    cache.learn('t', learned(7, { pie: 2 }, null));
    expect(cache.known('t', ['apple', 'pie'])).toMatchObject({
      lexemes: ['appl', 'pie'],
      dfs: [4, 2],
      impacts: [1.4, 1.2],
      complete: true,
    });
    // An impact learned later at the same revision joins the frequency learned before it.
    cache.learn('t', { ...learned(7, { pie: 2 }, null), impacts: [null] });
    expect(cache.known('t', ['pie'])).toMatchObject({ dfs: [2], impacts: [null] });
    cache.learn('t', learned(7, { pie: 2 }, null));
    expect(cache.known('t', ['pie'])).toMatchObject({ dfs: [2], impacts: [1.2] });
    cache.learn('t', { ...learned(9, { pie: 3 }, null), n: 12 });
    expect(cache.known('t', ['apple', 'pie'])).toMatchObject({
      revision: 9,
      n: 12,
      lexemes: ['pie'],
      dfs: [3],
      complete: false, // "apple"'s lexeme has no statistics at revision 9 yet
    });
  });
});
