import { MAXIMUM_FACTOR } from './bm25-sql.js';
import { tsqueryOperand } from './memory-filter-sql.js';
import type { KnownStatistics } from './text-statistics-cache.js';

/**
 * Pruning is planned only when it is expected to skip at least this many matching records: below
 * that, scoring them all costs less than a wasted try.
 */
export const MINIMUM_PRUNED_RECORDS = 2_000;

/** The BM25 term factor of one occurrence in a record of average length (k1 = 1.2, b = 0.75). */
const TYPICAL_FACTOR = 2.2 / (1 + 1.2);

/** Queries with more lexemes than this are not pruned (the combinations grow as 2^n). */
const MAXIMUM_LEXEMES = 10;

/** At most this many combinations in the candidates' tsquery. */
const MAXIMUM_COMBINATIONS = 64;

/** Bounds are raised by this share so that the statement's recomputation never exceeds them by rounding. */
const ROUNDING = 1e-9;

/** How a BM25 search is pruned: which records are scored, and what the statement must check. */
export interface Bm25PruningPlan {
  /** The query's lexemes and the bound assumed for each (idf × impact): the most one can add. */
  lexemes: string[];
  bounds: number[];
  /** Every record whose assumed bounds sum to at least this much is among the candidates. */
  threshold: number;
  /** The tsquery text (for a `::tsquery` cast) of the candidates: each combination's lexemes AND-ed, OR-ed together. */
  query: string;
}

interface Term {
  lexeme: string;
  df: number;
  idf: number;
  bound: number;
}

/**
 * The score that the `limit`-th best record is expected to reach (one occurrence of each word it
 * holds, in a record of average length): the best of the lowest idf among the rarest lexemes whose
 * records number `limit`, and of a combination of lexemes that at least `limit` records are
 * expected to hold all of, taking words to occur independently.
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
  for (let subset = 1; subset < 1 << terms.length; subset += 1) {
    let expected = n;
    let score = 0;
    terms.forEach((term, index) => {
      if ((subset & (1 << index)) === 0) return;
      expected *= term.df / Math.max(n, 1);
      score += term.idf * TYPICAL_FACTOR;
    });
    if (expected >= limit && score > best) best = score;
  }
  return best;
}

/**
 * How a BM25 search for the top `limit` is pruned (WAND-style, with the GIN index doing the
 * skipping), or null to score every match.
 *
 * Each lexeme can add at most its bound (idf × impact, or × MAXIMUM_FACTOR while its impact is not
 * known) to a record's score. With a threshold T below the score the `limit`-th record is expected
 * to reach (just above the largest sum of bounds below that score), a record can only make the top
 * if the bounds of the query lexemes it holds add up to T or more: that is, if it holds all of
 * some minimal combination whose bounds reach T. The candidates are the records matching those
 * combinations (`('a' & 'b') | ('c')`), which the GIN index finds by intersecting posting lists,
 * without visiting the others. The plan comes from cached, possibly stale statistics: `bm25Sql`
 * checks in the search's snapshot that no lexeme's real bound exceeds the assumed one and that
 * the `limit`-th candidate scores at least T (every other record scores below T), and otherwise
 * scores every match in the same statement. A wrong plan costs time, never a different answer.
 */
export function bm25PruningPlan(known: KnownStatistics, limit: number): Bm25PruningPlan | null {
  const count = known.lexemes.length;
  if (!known.complete || known.revision === null || count < 2 || count > MAXIMUM_LEXEMES || limit <= 0) {
    return null;
  }
  const terms: Term[] = known.lexemes.map((lexeme, index) => {
    const df = known.dfs[index] ?? 0;
    const idf = Math.log(1 + (Math.max(known.n - df, 0) + 0.5) / (df + 0.5));
    return {
      lexeme,
      df,
      idf,
      bound: idf * (known.impacts[index] ?? MAXIMUM_FACTOR) * (1 + ROUNDING),
    };
  });
  const subsets = Array.from({ length: (1 << count) - 1 }, (_, index) =>
    terms.filter((__, at) => ((index + 1) & (1 << at)) !== 0),
  ).map((members) => ({ members, sum: members.reduce((total, term) => total + term.bound, 0) }));
  // The combinations that can only fall short of the expected score are left out; the threshold
  // sits just above the largest of their sums (the lowest one that leaves out the same records),
  // so the statement's check asks as little of the real scores as this plan allows.
  const expected = expectedScore(terms, known.n, limit);
  const below = Math.max(0, ...subsets.filter(({ sum }) => sum < expected).map(({ sum }) => sum));
  if (!(below > 0)) return null;
  const threshold = below * (1 + ROUNDING);
  const combinations: Term[][] = [];
  let expectedCandidates = 0;
  for (const { members, sum } of subsets) {
    const smallest = Math.min(...members.map((term) => term.bound));
    // Minimal: it reaches the threshold, and without its smallest member it would not.
    if (sum < threshold || sum - smallest >= threshold) continue;
    combinations.push(members);
    expectedCandidates += members.reduce(
      (records, term) => (records * term.df) / Math.max(known.n, 1),
      known.n,
    );
  }
  const matches = terms.reduce((total, term) => total + term.df, 0);
  if (combinations.length === 0 || combinations.length > MAXIMUM_COMBINATIONS) return null;
  if (matches - expectedCandidates < MINIMUM_PRUNED_RECORDS) return null;
  return {
    lexemes: terms.map((term) => term.lexeme),
    bounds: terms.map((term) => term.bound),
    threshold,
    query: combinations
      .map((members) => `(${members.map((term) => tsqueryOperand(term.lexeme)).join(' & ')})`)
      .join(' | '),
  };
}
