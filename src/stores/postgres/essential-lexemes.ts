import type { KnownStatistics } from './text-statistics-cache.js';

/**
 * Pruning is planned only when it skips at least this many matching records: below that, scoring
 * them all costs less than a wasted try.
 */
export const MINIMUM_PRUNED_RECORDS = 2_000;

/** The BM25 term factor of one occurrence in a record of average length (k1 = 1.2, b = 0.75). */
const TYPICAL_FACTOR = 2.2 / (1 + 1.2);

/**
 * The lexemes whose records a BM25 search scores first (MaxScore), or null to score every match.
 *
 * Lexemes are taken in falling order of their bound (idf × impact: the most any record can gain
 * from one). The essential ones are the fewest such that the records containing them are at least
 * `limit`, and the rest's bounds add up to less than the score a top-`limit` record is expected to
 * reach (the idf of the lexeme at which their records reach `limit`, for one occurrence in a record
 * of average length). This is only an estimate from cached, possibly stale statistics: `bm25Sql`
 * checks the real bound against the real scores in the search's snapshot and scores every match
 * when the estimate was wrong, so a bad guess costs time, never a different answer.
 */
export function essentialLexemes(known: KnownStatistics, limit: number): string[] | null {
  if (!known.complete || known.revision === null || known.lexemes.length < 2 || limit <= 0) return null;
  const terms = known.lexemes
    .map((lexeme, index) => {
      const df = known.dfs[index] ?? 0;
      const idf = Math.log(1 + (Math.max(known.n - df, 0) + 0.5) / (df + 0.5));
      return { lexeme, df, idf, bound: idf * (known.impacts[index] ?? Number.POSITIVE_INFINITY) };
    })
    .sort((a, b) => b.bound - a.bound);
  let rest = terms.reduce((sum, term) => sum + term.bound, 0);
  let restRecords = terms.reduce((sum, term) => sum + term.df, 0);
  let records = 0;
  // The lowest idf among the essential lexemes' first `limit` records (terms come rarest-first
  // only roughly: bounds also weigh impacts).
  let expected = Number.POSITIVE_INFINITY;
  for (let count = 1; count < terms.length; count += 1) {
    const term = terms[count - 1] as (typeof terms)[number];
    rest -= term.bound;
    restRecords -= term.df;
    if (records < limit) expected = Math.min(expected, term.idf * TYPICAL_FACTOR);
    records += term.df;
    if (restRecords < MINIMUM_PRUNED_RECORDS) return null;
    if (records >= limit && rest < expected) return terms.slice(0, count).map((chosen) => chosen.lexeme);
  }
  return null;
}
