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
    // NULL (a missing eventDate) compares as unknown, so it fails every range as the contract says;
    // a range with no bound at all still asks for a date.
    const before = conditions.length;
    if (range.gt !== undefined) conditions.push(`${column} > ${at(range.gt)}`);
    if (range.gte !== undefined) conditions.push(`${column} >= ${at(range.gte)}`);
    if (range.lt !== undefined) conditions.push(`${column} < ${at(range.lt)}`);
    if (range.lte !== undefined) conditions.push(`${column} <= ${at(range.lte)}`);
    if (range.except !== undefined) {
      const from = at(range.except.gte);
      const to = at(range.except.lt);
      conditions.push(`(${column} < ${from} OR ${column} >= ${to})`);
    }
    if (conditions.length === before) conditions.push(`${column} IS NOT NULL`);
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
  return terms.map(tsqueryOperand).join(' | ');
}

/** One quoted tsquery operand: no character of `term` acts as tsquery syntax. */
export const tsqueryOperand = (term: string): string =>
  `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
