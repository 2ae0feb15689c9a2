/** The placeholders of one BM25 search (see `bm25Sql`). */
export interface Bm25Placeholders {
  tenant: string;
  /** The query's words, space-separated (their lexemes are the query's terms). */
  wordsText: string;
  /** The tsquery text that selects candidates (`tsqueryText`). */
  query: string;
  limit: string;
  /**
   * Cached statistics, true at `revision` (bigint, null when none): n, avgdl, and per lexeme its
   * document frequency and impact (the largest BM25 term factor, idf aside, of any of the tenant's
   * records that contain it; null when not known).
   */
  revision: string;
  n: string;
  avgdl: string;
  lexemes: string;
  dfs: string;
  impacts: string;
  /** Words (text[]) whose lexemes the caller wants reported in `stems`. */
  unstemmed: string;
  /**
   * Pruning (`bm25PruningPlan`): the query's lexemes (text[]) with the bound assumed for each
   * (float8[]), the threshold (float8), and the tsquery of the candidates. Absent: every matching
   * record is scored.
   */
  pruning?: { lexemes: string; bounds: string; threshold: string; query: string };
}

/** What no BM25 term factor reaches (k1 + 1): the bound of a lexeme whose impact is not known. */
export const MAXIMUM_FACTOR = 2.2;

/** The BM25 term factor (k1 = 1.2, b = 0.75) of `positions` in the record whose tsvector is `vector`. */
const termFactor = (positions: string, vector: string) =>
  `cardinality(${positions}) * 2.2
        / (cardinality(${positions}) + 1.2 * (0.25 + 0.75 * length(${vector}) / greatest(corpus.avgdl, 1)))`;

/**
 * The BM25 score of record `m` against the query's `weights`. Only the query's lexemes are unnested:
 * `setweight` marks them (to_tsvector leaves every position unweighted) and `ts_filter` keeps
 * them, which is about a fifth cheaper than unnesting all of the record's lexemes.
 */
const SCORE = `(
      SELECT coalesce(sum(w.idf * ${termFactor('u.positions', 'm.text_search')}), 0)
      FROM unnest(ts_filter(setweight(m.text_search, 'A', corpus.lexemes), '{a}')) AS u
      JOIN weights w ON w.lexeme = u.lexeme
    )`;

/**
 * BM25 (k1 = 1.2, b = 0.75) over the records that match the query and pass `where`, computed in SQL
 * from the GIN-indexed tsvectors: the query's stemmed lexemes, each one's document frequency among
 * the tenant's current records (a GIN count per lexeme), the tenant's record count and average length
 * in lexemes (`length(tsvector)`), and each candidate's term frequencies (the positions of the lexeme
 * in its tsvector). The statistics come from the caller's cache when the tenant's memory revision,
 * read in this statement's snapshot, is the cached one; whatever is stale or missing is counted here
 * (CASE and coalesce evaluate those subqueries only when needed), so the ranking is always that of
 * this snapshot. Every row also reports the statistics used, for the cache; with no match, one row
 * with a null id does. A lexeme's impact (for pruning) costs a pass over its records like its
 * document frequency, so it is found only once that frequency is cached at this revision: the
 * first search after a write costs what it did before pruning existed, and until an impact is
 * known the lexeme's bound uses MAXIMUM_FACTOR, which no term factor reaches.
 *
 * With `pruning` (exact, see `bm25PruningPlan`): only the candidates (records holding a combination
 * of lexemes whose assumed bounds reach the threshold) are scored. Their top `limit` is the answer
 * if there are `limit` of them, the last scores at least the threshold, and no lexeme's bound
 * (idf × impact) in this snapshot exceeds the one assumed: then every other record scores below
 * the threshold. Otherwise every matching record is scored as without pruning, in the same
 * statement, so the answer is always the full scoring's.
 */
export function bm25Sql(where: string, p: Bm25Placeholders): string {
  const current = `c.tenant_id = ${p.tenant} AND c.valid_to IS NULL`;
  const full = `SELECT m.id, m.session_id, m.entities, ${SCORE} AS score
    FROM memories m CROSS JOIN corpus CROSS JOIN to_tsquery('english', ${p.query}) AS q(query)
    WHERE m.text_search @@ q.query AND ${where}
    ORDER BY score DESC, m.id LIMIT ${p.limit}`;
  const hits = p.pruning
    ? `essential AS MATERIALIZED (
    SELECT m.id, m.session_id, m.entities, ${SCORE} AS score
    FROM memories m CROSS JOIN corpus
    -- Planned from statistics of another revision: not even tried (the first search after a
    -- write then costs what it did before pruning existed).
    WHERE (SELECT state.revision FROM state) = ${p.revision}
      AND m.text_search @@ ${p.pruning.query}::tsquery AND ${where}
    ORDER BY score DESC, m.id LIMIT ${p.limit}
  ),
  pruning AS MATERIALIZED (
    SELECT (SELECT count(*) FROM essential) >= ${p.limit}
      AND (SELECT min(e.score) FROM essential e) >= ${p.pruning.threshold}
      AND (SELECT coalesce(bool_and(assumed.bound IS NOT NULL
          AND w.idf * coalesce(w.impact, ${MAXIMUM_FACTOR}) <= assumed.bound), false)
        FROM weights w LEFT JOIN unnest(${p.pruning.lexemes}, ${p.pruning.bounds}) AS assumed(lexeme, bound)
          ON assumed.lexeme = w.lexeme) AS pruned
  ),
  hits AS (
    SELECT e.id, e.score, e.session_id, e.entities, true AS pruned FROM essential e WHERE (SELECT pruned FROM pruning)
    UNION ALL
    SELECT f.id, f.score, f.session_id, f.entities, false FROM (${full}) AS f WHERE NOT (SELECT pruned FROM pruning)
  )`
    : `hits AS (SELECT f.id, f.score, f.session_id, f.entities, false AS pruned FROM (${full}) AS f)`;
  return `WITH state AS MATERIALIZED (
    SELECT coalesce((SELECT r.revision FROM memory_revisions r WHERE r.tenant_id = ${p.tenant}), 0) AS revision
  ),
  terms AS (
    SELECT t.lexeme, ('''' || replace(replace(t.lexeme, '\\', '\\\\'), '''', '''''') || '''')::tsquery AS query
    FROM unnest(tsvector_to_array(to_tsvector('english', ${p.wordsText}))) AS t(lexeme)
  ),
  counted AS MATERIALIZED (
    SELECT state.revision, CASE WHEN state.revision = ${p.revision} THEN ARRAY[${p.n}, ${p.avgdl}]
      ELSE (SELECT ARRAY[count(*)::float8, coalesce(avg(length(c.text_search)), 1)::float8]
        FROM memories c WHERE ${current}) END AS stats
    FROM state
  ),
  corpus AS (SELECT counted.revision, counted.stats[1] AS n, counted.stats[2] AS avgdl,
    (SELECT coalesce(array_agg(terms.lexeme), '{}') FROM terms) AS lexemes FROM counted),
  frequencies AS MATERIALIZED (
    SELECT terms.lexeme,
      coalesce(known.df, (SELECT count(*)::float8 FROM memories c WHERE ${current} AND c.text_search @@ terms.query)) AS df,
      CASE WHEN known.impact IS NOT NULL THEN known.impact WHEN known.df IS NOT NULL THEN (
        SELECT coalesce(max((SELECT ${termFactor('u.positions', 'c.text_search')}
          FROM unnest(c.text_search) AS u WHERE u.lexeme = terms.lexeme)), 0)::float8
        FROM memories c WHERE c.tenant_id = ${p.tenant} AND c.text_search @@ terms.query) END AS impact
    FROM terms CROSS JOIN corpus LEFT JOIN unnest(${p.lexemes}, ${p.dfs}, ${p.impacts}) AS known(lexeme, df, impact)
      ON known.lexeme = terms.lexeme AND corpus.revision = ${p.revision}
  ),
  weights AS MATERIALIZED (
    SELECT f.lexeme, f.df, f.impact, ln(1 + (greatest(corpus.n - f.df, 0) + 0.5) / (f.df + 0.5)) AS idf
    FROM frequencies f CROSS JOIN corpus
  ),
  ${hits}
  SELECT corpus.revision, corpus.n, corpus.avgdl, learned.lexemes, learned.dfs, learned.impacts,
    (SELECT json_object_agg(w.word, tsvector_to_array(to_tsvector('english', w.word)))
      FROM unnest(${p.unstemmed}) AS w(word)) AS stems,
    found.id, found.score, found.session_id, found.entities, found.pruned
  FROM corpus
  CROSS JOIN (SELECT coalesce(array_agg(w.lexeme), '{}') AS lexemes, coalesce(array_agg(w.df), '{}') AS dfs,
    coalesce(array_agg(w.impact), '{}') AS impacts FROM weights w) AS learned
  LEFT JOIN LATERAL (SELECT hits.id, hits.score, hits.session_id, hits.entities, hits.pruned FROM hits) AS found ON true
  ORDER BY found.score DESC, found.id`;
}
