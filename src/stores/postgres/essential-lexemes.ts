import type { KnownStatistics } from './text-statistics-cache.js';

/**
 * Pruning is planned only when it skips at least this many matching records: below that, scoring
 * them all costs less than a wasted try.
 */
export const MINIMUM_PRUNED_RECORDS = 2_000;

/** The BM25 term factor of one occurrence in a record of average length (k1 = 1.2, b = 0.75). */
const TYPICAL_FACTOR = 2.2 / (1 + 1.2);

/** Subsets of at most this many essential lexemes are weighed when estimating the top's scores. */
const ESTIMATED_LEXEMES = 8;

interface Term {
  lexeme: string;
  df: number;
  idf: number;
  bound: number;
}

/**
 * The score that the `limit`-th best record containing some of `terms` is expected to reach (one
 * occurrence each, in a record of average length): the best of the lowest idf among the rarest
 * lexemes whose records number `limit`, and of a combination of lexemes that at least `limit`
 * records are expected to contain all of, taking words to occur independently.
 */
function expectedScore(terms: readonly Term[], n: number, limit: number): number {
  let best = 0;
  let records = 0;
  for (const term of [...terms].sort((a, b) => b.idf - a.idf)) {
    records += term.df;
    if (records >= limit) {
      best = term.idf * TYPICAL_FACTOR;
      break;
    }
  }
  const weighed = terms.slice(0, ESTIMATED_LEXEMES);
  for (let subset = 1; subset < 1 << weighed.length; subset += 1) {
    let records = n;
    let score = 0;
    weighed.forEach((term, index) => {
      if ((subset & (1 << index)) === 0) return;
      records *= term.df / Math.max(n, 1);
      score += term.idf * TYPICAL_FACTOR;
    });
    if (records >= limit && score > best) best = score;
  }
  return best;
}

/**
 * The lexemes whose records a BM25 search scores first (MaxScore), or null to score every match.
 *
 * Lexemes are taken in falling order of their bound (idf × impact: the most any record can gain
 * from one). The essential ones are the fewest such that the rest's bounds add up to less than the
 * score the `limit`-th best record among theirs is expected to reach (`expectedScore`). This is
 * only an estimate from cached, possibly stale statistics: `bm25Sql` checks the real bound against
 * the real scores in the search's snapshot and scores every match when the estimate was wrong, so
 * a bad guess costs time, never a different answer.
 */
export function essentialLexemes(known: KnownStatistics, limit: number): string[] | null {
  if (!known.complete || known.revision === null || known.lexemes.length < 2 || limit <= 0) return null;
  const terms: Term[] = known.lexemes
    .map((lexeme, index) => {
      const df = known.dfs[index] ?? 0;
      const idf = Math.log(1 + (Math.max(known.n - df, 0) + 0.5) / (df + 0.5));
      return { lexeme, df, idf, bound: idf * (known.impacts[index] ?? Number.POSITIVE_INFINITY) };
    })
    .sort((a, b) => b.bound - a.bound);
  let rest = terms.reduce((sum, term) => sum + term.bound, 0);
  let restRecords = terms.reduce((sum, term) => sum + term.df, 0);
  for (let count = 1; count < terms.length; count += 1) {
    const term = terms[count - 1] as Term;
    rest -= term.bound;
    restRecords -= term.df;
    if (restRecords < MINIMUM_PRUNED_RECORDS) return null;
    const essential = terms.slice(0, count);
    if (rest < expectedScore(essential, known.n, limit)) return essential.map((chosen) => chosen.lexeme);
  }
  return null;
}
