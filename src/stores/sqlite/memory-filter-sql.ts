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

/** Values bound to a statement's named parameters. */
export type SqlParameters = Record<string, string | number | Buffer>;

/** A WHERE clause over `memories m` and the parameters it names. */
export interface FilterSql {
  where: string;
  parameters: SqlParameters;
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

/** A list parameter's rows: json_each keeps the SQL text independent of the list's length. */
const listOf = (parameter: string) => `(SELECT value FROM json_each(${parameter}))`;

/** Case-sensitive prefix test (LIKE and GLOB would fold case or read wildcards); NULL fails. */
const startsWith = (column: string, prefix: string) => `substr(${column}, 1, length(${prefix})) = ${prefix}`;

/** Conditions on a nullable single-valued column; NULL equals nothing (see `memory-filter.ts`). */
function scalarConditions(column: string, filter: TagFilter, bind: (value: string) => string): string[] {
  const conditions: string[] = [];
  if (filter.exists !== undefined) conditions.push(`${column} ${filter.exists ? 'IS NOT NULL' : 'IS NULL'}`);
  if (filter.eq !== undefined) conditions.push(`${column} = ${bind(filter.eq)}`);
  if (filter.ne !== undefined) conditions.push(`${column} IS NOT ${bind(filter.ne)}`);
  if (filter.startswith !== undefined) conditions.push(startsWith(column, bind(filter.startswith)));
  if (filter.any !== undefined) conditions.push(`${column} IN ${listOf(bind(JSON.stringify(filter.any)))}`);
  if (filter.all !== undefined) {
    const wanted = bind(JSON.stringify(filter.all));
    conditions.push(`NOT EXISTS (SELECT 1 FROM json_each(${wanted}) WHERE value IS NOT ${column})`);
  }
  if (filter.none !== undefined) {
    const unwanted = listOf(bind(JSON.stringify(filter.none)));
    conditions.push(`(${column} IS NULL OR ${column} NOT IN ${unwanted})`);
  }
  return conditions;
}

/** Conditions on a JSON-array column: eq/ne test membership, any/all/none compare sets, exists tests emptiness. */
function listConditions(column: string, filter: TagFilter, bind: (value: string) => string): string[] {
  const conditions: string[] = [];
  const contains = (value: string) => `EXISTS (SELECT 1 FROM json_each(${column}) WHERE value = ${value})`;
  const containsAnyOf = (list: string[]) =>
    `EXISTS (SELECT 1 FROM json_each(${column}) WHERE value IN ${listOf(bind(JSON.stringify(list)))})`;
  if (filter.exists !== undefined)
    conditions.push(`json_array_length(${column}) ${filter.exists ? '>' : '='} 0`);
  if (filter.eq !== undefined) conditions.push(contains(bind(filter.eq)));
  if (filter.startswith !== undefined) {
    const prefix = bind(filter.startswith);
    conditions.push(`EXISTS (SELECT 1 FROM json_each(${column}) WHERE ${startsWith('value', prefix)})`);
  }
  if (filter.ne !== undefined) conditions.push(`NOT ${contains(bind(filter.ne))}`);
  if (filter.any !== undefined) conditions.push(containsAnyOf(filter.any));
  if (filter.all !== undefined) {
    const wanted = bind(JSON.stringify(filter.all));
    conditions.push(
      `NOT EXISTS (SELECT 1 FROM json_each(${wanted}) AS wanted WHERE wanted.value NOT IN ${listOf(column)})`,
    );
  }
  if (filter.none !== undefined) conditions.push(`NOT ${containsAnyOf(filter.none)}`);
  return conditions;
}

/**
 * Translates `filter` for one tenant into SQL over `memories m`, with the same meaning as the
 * reference predicate in `memory-filter.ts`. Every value is a bound parameter, and lists travel as
 * one JSON parameter, so the SQL text depends only on which conditions are present: statements
 * prepared for it can be cached. Timestamps compare as epoch milliseconds (as stored).
 */
export function memoryFilterSql(tenantId: string, filter: Partial<MemoryFilter>): FilterSql {
  const parameters: SqlParameters = { tenant_id: tenantId };
  let next = 0;
  const bind = (value: string | number): string => {
    const name = `f${next++}`;
    parameters[name] = value;
    return `@${name}`;
  };
  const conditions = ['m.tenant_id = @tenant_id'];
  if (filter.includeSuperseded !== true) conditions.push('m.valid_to IS NULL');
  if (filter.ids !== undefined) conditions.push(`m.id IN ${listOf(bind(JSON.stringify(filter.ids)))}`);
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
    // NULL (a missing eventDate) compares as unknown, so it fails every range as the contract says;
    // a range with no bound at all still asks for a date.
    const before = conditions.length;
    if (range.gt !== undefined) conditions.push(`${column} > ${bind(timestampMs(range.gt))}`);
    if (range.gte !== undefined) conditions.push(`${column} >= ${bind(timestampMs(range.gte))}`);
    if (range.lt !== undefined) conditions.push(`${column} < ${bind(timestampMs(range.lt))}`);
    if (range.lte !== undefined) conditions.push(`${column} <= ${bind(timestampMs(range.lte))}`);
    if (range.except !== undefined) {
      const from = bind(timestampMs(range.except.gte));
      const to = bind(timestampMs(range.except.lt));
      conditions.push(`(${column} < ${from} OR ${column} >= ${to})`);
    }
    if (conditions.length === before) conditions.push(`${column} IS NOT NULL`);
  }
  if (filter.pinned !== undefined) conditions.push(`m.pinned = ${bind(filter.pinned ? 1 : 0)}`);
  return { where: conditions.join('\n    AND '), parameters };
}

/**
 * An FTS5 MATCH expression for a user's query, or null when it has no searchable word. The text is
 * split into words as the in-memory analyzer does, stopwords are dropped, and each remaining word
 * becomes a quoted FTS5 string (quotes doubled), OR-ed together: no character of the user's query
 * can act as FTS5 syntax (operators, column filters, prefixes, NEAR, parentheses). The porter
 * tokenizer stems the quoted words just as it stemmed the indexed text.
 */
export function ftsMatchExpression(query: string): string | null {
  const terms = [...new Set(words(query).filter((word) => !STOPWORDS.has(word)))];
  if (terms.length === 0) return null;
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(' OR ');
}
