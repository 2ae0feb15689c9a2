import type { MemoryFilter, TagFilter } from '../../core/schemas/memory-record.js';
import { STOPWORDS, words } from '../../core/text/analyze-text.js';
import {
  DATE_FIELDS,
  type DateField,
  LIST_TAG_FIELDS,
  type ListTagField,
  SCALAR_TAG_FIELDS,
  type ScalarTagField,
} from '../memory-filter.js';
import { timestampMs } from '../session-rules.js';

/** Positional parameters of one statement: `add` binds a value and returns its placeholder. */
export class SqlParameters {
  readonly values: unknown[] = [];

  add(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

const SCALAR_COLUMNS: Record<ScalarTagField, string> = {
  namespace: 'm.namespace',
  userId: 'm.user_id',
  sessionId: 'm.session_id',
  agentId: 'm.agent_id',
  documentId: 'm.document_id',
  memoryType: 'm.memory_type',
};
const LIST_COLUMNS: Record<ListTagField, string> = { topics: 'm.topics', entities: 'm.entities' };
const DATE_COLUMNS: Record<DateField, string> = {
  createdAt: 'm.created_at',
  eventDate: 'm.event_date',
  lastAccessed: 'm.last_accessed',
};

/** Conditions on a nullable single-valued column; NULL equals nothing (see `memory-filter.ts`). */
function scalarConditions(column: string, filter: TagFilter, bind: SqlParameters): string[] {
  const conditions: string[] = [];
  if (filter.exists !== undefined) conditions.push(`${column} ${filter.exists ? 'IS NOT NULL' : 'IS NULL'}`);
  if (filter.eq !== undefined) conditions.push(`${column} = ${bind.add(filter.eq)}`);
  if (filter.ne !== undefined) conditions.push(`${column} IS DISTINCT FROM ${bind.add(filter.ne)}`);
  // starts_with is case-sensitive and reads no wildcards (unlike LIKE); NULL fails it.
  if (filter.startswith !== undefined)
    conditions.push(`coalesce(starts_with(${column}, ${bind.add(filter.startswith)}), false)`);
  if (filter.any !== undefined) conditions.push(`${column} = ANY(${bind.add(filter.any, '::text[]')})`);
  if (filter.all !== undefined) {
    const wanted = bind.add(filter.all, '::text[]');
    conditions.push(
      `NOT EXISTS (SELECT 1 FROM unnest(${wanted}) AS w(value) WHERE w.value IS DISTINCT FROM ${column})`,
    );
  }
  if (filter.none !== undefined) {
    conditions.push(`(${column} IS NULL OR NOT (${column} = ANY(${bind.add(filter.none, '::text[]')})))`);
  }
  return conditions;
}

/** Conditions on a text[] column: eq/ne test membership, any/all/none compare sets (GIN-indexable operators). */
function listConditions(column: string, filter: TagFilter, bind: SqlParameters): string[] {
  const conditions: string[] = [];
  const array = (values: string[]) => `${bind.add(values, '::text[]')} COLLATE "C"`;
  if (filter.exists !== undefined) conditions.push(`cardinality(${column}) ${filter.exists ? '>' : '='} 0`);
  if (filter.eq !== undefined) conditions.push(`${column} @> ${array([filter.eq])}`);
  if (filter.ne !== undefined) conditions.push(`NOT (${column} @> ${array([filter.ne])})`);
  if (filter.startswith !== undefined) {
    const prefix = bind.add(filter.startswith);
    conditions.push(
      `EXISTS (SELECT 1 FROM unnest(${column}) AS v(value) WHERE starts_with(v.value, ${prefix}))`,
    );
  }
  if (filter.any !== undefined) conditions.push(`${column} && ${array(filter.any)}`);
  if (filter.all !== undefined) conditions.push(`${column} @> ${array(filter.all)}`);
  if (filter.none !== undefined) conditions.push(`NOT (${column} && ${array(filter.none)})`);
  return conditions;
}

/**
 * Translates `filter` for one tenant into a WHERE clause over `memories m`, with the meaning of the
 * reference predicate in `memory-filter.ts`. Every value is a bound parameter (lists as one text[]),
 * so no input reaches the SQL text. Timestamps compare as epoch milliseconds (as stored).
 */
export function memoryFilterSql(
  tenantId: string,
  filter: Partial<MemoryFilter>,
  bind: SqlParameters,
): string {
  const conditions = [`m.tenant_id = ${bind.add(tenantId)}`];
  if (filter.includeSuperseded !== true) conditions.push('m.valid_to IS NULL');
  if (filter.ids !== undefined) conditions.push(`m.id = ANY(${bind.add(filter.ids, '::text[]')})`);
  for (const field of SCALAR_TAG_FIELDS) {
    const condition = filter[field];
    if (condition) conditions.push(...scalarConditions(SCALAR_COLUMNS[field], condition, bind));
  }
  for (const field of LIST_TAG_FIELDS) {
    const condition = filter[field];
    if (condition) conditions.push(...listConditions(LIST_COLUMNS[field], condition, bind));
  }
  for (const field of DATE_FIELDS) {
    const range = filter[field];
    if (!range) continue;
    const column = DATE_COLUMNS[field];
    const at = (iso: string) => bind.add(timestampMs(iso), '::bigint');
    // NULL (a missing eventDate) compares as unknown, so it fails every range as the contract says.
    if (range.gt !== undefined) conditions.push(`${column} > ${at(range.gt)}`);
    if (range.gte !== undefined) conditions.push(`${column} >= ${at(range.gte)}`);
    if (range.lt !== undefined) conditions.push(`${column} < ${at(range.lt)}`);
    if (range.lte !== undefined) conditions.push(`${column} <= ${at(range.lte)}`);
    if (range.except !== undefined) {
      const from = at(range.except.gte);
      const to = at(range.except.lt);
      conditions.push(`(${column} < ${from} OR ${column} >= ${to})`);
    }
  }
  if (filter.pinned !== undefined) conditions.push(`m.pinned = ${bind.add(filter.pinned)}`);
  return conditions.join('\n    AND ');
}

/** The searchable words of a user's query: split as the in-memory analyzer does, stopwords dropped. */
export function queryWords(query: string): string[] {
  return [...new Set(words(query).filter((word) => !STOPWORDS.has(word)))];
}

/**
 * A tsquery text for the query's words, or null when it has none: each word a quoted tsquery
 * operand, OR-ed together, so no character of the query acts as tsquery syntax. Passed to
 * `to_tsquery('english', ...)`, the words are stemmed as the indexed text was.
 */
export function tsqueryText(terms: readonly string[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((term) => `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`).join(' | ');
}

/** The placeholders of one BM25 search (see `bm25Sql`). */
export interface Bm25Placeholders {
  tenant: string;
  /** The query's words, space-separated (their lexemes are the query's terms). */
  wordsText: string;
  /** The tsquery text that selects candidates (`tsqueryText`). */
  query: string;
  limit: string;
  /** Cached statistics, true at `revision` (bigint, null when none): n, avgdl, lexemes[] and dfs[]. */
  revision: string;
  n: string;
  avgdl: string;
  lexemes: string;
  dfs: string;
  /** Words (text[]) whose lexemes the caller wants reported in `stems`. */
  unstemmed: string;
}

/**
 * BM25 (k1 = 1.2, b = 0.75) over the records that match the query and pass `where`, computed in SQL
 * from the GIN-indexed tsvectors: the query's stemmed lexemes, each one's document frequency among
 * the tenant's current records (a GIN count per lexeme), the tenant's record count and average length
 * in lexemes (`length(tsvector)`), and each candidate's term frequencies (the positions of the lexeme
 * in its tsvector). The statistics come from the caller's cache when the tenant's memory revision,
 * read in this statement's snapshot, is the cached one; whatever is stale or missing is counted here
 * (CASE and coalesce evaluate those subqueries only when needed), so the ranking is always that of
 * this snapshot. Every row also reports the statistics used, for the cache; with no match, one row
 * with a null id does.
 */
export function bm25Sql(where: string, p: Bm25Placeholders): string {
  const current = `c.tenant_id = ${p.tenant} AND c.valid_to IS NULL`;
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
  corpus AS (SELECT counted.revision, counted.stats[1] AS n, counted.stats[2] AS avgdl FROM counted),
  frequencies AS MATERIALIZED (
    SELECT terms.lexeme, coalesce(known.df,
      (SELECT count(*)::float8 FROM memories c WHERE ${current} AND c.text_search @@ terms.query)) AS df
    FROM terms CROSS JOIN corpus LEFT JOIN unnest(${p.lexemes}, ${p.dfs}) AS known(lexeme, df)
      ON known.lexeme = terms.lexeme AND corpus.revision = ${p.revision}
  ),
  weights AS MATERIALIZED (
    SELECT f.lexeme, f.df, ln(1 + (greatest(corpus.n - f.df, 0) + 0.5) / (f.df + 0.5)) AS idf
    FROM frequencies f CROSS JOIN corpus
  )
  SELECT corpus.revision, corpus.n, corpus.avgdl, learned.lexemes, learned.dfs,
    (SELECT json_object_agg(w.word, tsvector_to_array(to_tsvector('english', w.word)))
      FROM unnest(${p.unstemmed}) AS w(word)) AS stems,
    hits.id, hits.score
  FROM corpus
  CROSS JOIN (SELECT coalesce(array_agg(w.lexeme), '{}') AS lexemes, coalesce(array_agg(w.df), '{}') AS dfs
    FROM weights w) AS learned
  LEFT JOIN LATERAL (
    SELECT m.id, (
      SELECT coalesce(sum(w.idf * cardinality(u.positions) * 2.2
        / (cardinality(u.positions) + 1.2 * (0.25 + 0.75 * length(m.text_search) / greatest(corpus.avgdl, 1)))), 0)
      FROM unnest(m.text_search) AS u JOIN weights w ON w.lexeme = u.lexeme
    ) AS score
    FROM memories m CROSS JOIN to_tsquery('english', ${p.query}) AS q(query)
    WHERE m.text_search @@ q.query AND ${where}
    ORDER BY score DESC, m.id LIMIT ${p.limit}
  ) AS hits ON true
  ORDER BY hits.score DESC, hits.id`;
}
