import type { DateRange, MemoryFilter, MemoryRecord, TagFilter } from '../core/schemas/memory-record.js';
import { timestampMs } from './session-rules.js';

/**
 * The meaning of a `MemoryFilter`, as one pure predicate. The memory driver filters with it; the
 * SQLite driver translates the same rules to SQL (`sqlite/memory-filter-sql.ts`), and the
 * conformance suite uses this predicate as the reference both drivers must agree with.
 *
 * - All given conditions hold together (AND); an absent condition, or `{}`, holds for every record.
 * - Single-valued fields: `eq` equals, `ne` differs, `any` is one of, `all` equals every listed
 *   value (so it can only hold when they are all the same), `none` is none of. A null field equals
 *   nothing: `eq`, `any` and a non-empty `all` fail on it, `ne` and `none` pass.
 * - List fields (`topics`, `entities`): `eq` contains, `ne` does not contain, `any` contains at least
 *   one, `all` contains every one, `none` contains none.
 * - `startswith` is a case-sensitive prefix: a single-valued field starts with it; a list field has
 *   an element that does. A null field matches no prefix.
 * - `exists: true` holds when the field is set (not null; a non-empty list), `exists: false` when
 *   it is not.
 * - Empty lists follow the logic: `any: []` and `ids: []` match nothing; `all: []` and `none: []`
 *   match everything.
 * - Date ranges compare instants; a null `eventDate` fails any range. `except: {gte, lt}` holds
 *   when the instant lies outside `[gte, lt)`.
 * - Unless `includeSuperseded` is true, only current versions (`validTo` null) match.
 */
export type MemoryPredicate = (record: MemoryRecord) => boolean;

/** Filter keys on single-valued (nullable) fields. */
export const SCALAR_TAG_FIELDS = [
  'namespace',
  'userId',
  'sessionId',
  'agentId',
  'documentId',
  'memoryType',
] as const;
export type ScalarTagField = (typeof SCALAR_TAG_FIELDS)[number];

/** Filter keys on list fields. */
export const LIST_TAG_FIELDS = ['topics', 'entities'] as const;
export type ListTagField = (typeof LIST_TAG_FIELDS)[number];

/** Filter keys on timestamps. */
export const DATE_FIELDS = ['createdAt', 'eventDate', 'lastAccessed'] as const;
export type DateField = (typeof DATE_FIELDS)[number];

type Test<T> = (value: T) => boolean;

/** All of `tests`. Filters run once per candidate row in vector search, so the common shapes (one or two tests) avoid the loop. */
function every<T>(tests: readonly Test<T>[]): Test<T> {
  const [first, second] = tests;
  if (first === undefined) return () => true;
  if (tests.length === 1) return first;
  if (tests.length === 2 && second !== undefined) return (value) => first(value) && second(value);
  return (value) => {
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
}

function scalarTest(filter: TagFilter): Test<string | null> {
  const tests: Test<string | null>[] = [];
  const { eq, ne, any, all, none, exists, startswith } = filter;
  if (exists !== undefined) tests.push((value) => (value !== null) === exists);
  if (startswith !== undefined) tests.push((value) => (value ?? '').startsWith(startswith));
  if (eq !== undefined) tests.push((value) => value === eq);
  if (ne !== undefined) tests.push((value) => value !== ne);
  if (any !== undefined) {
    const wanted = new Set(any);
    tests.push((value) => value !== null && wanted.has(value));
  }
  if (all !== undefined) tests.push((value) => all.every((wanted) => wanted === value));
  if (none !== undefined) {
    const unwanted = new Set(none);
    tests.push((value) => value === null || !unwanted.has(value));
  }
  return every(tests);
}

function listTest(filter: TagFilter): Test<readonly string[]> {
  const tests: Test<readonly string[]>[] = [];
  const { eq, ne, any, all, none, exists, startswith } = filter;
  if (exists !== undefined) tests.push((values) => values.length > 0 === exists);
  if (startswith !== undefined) tests.push((values) => values.some((value) => value.startsWith(startswith)));
  const containsAny = (wanted: ReadonlySet<string>) => (values: readonly string[]) =>
    values.some((value) => wanted.has(value));
  if (eq !== undefined) tests.push((values) => values.includes(eq));
  if (ne !== undefined) tests.push((values) => !values.includes(ne));
  if (any !== undefined) tests.push(containsAny(new Set(any)));
  if (all !== undefined) tests.push((values) => all.every((wanted) => values.includes(wanted)));
  if (none !== undefined) {
    const contains = containsAny(new Set(none));
    tests.push((values) => !contains(values));
  }
  return every(tests);
}

function dateTest(range: DateRange): Test<string | null> {
  const tests: Test<number>[] = [];
  if (range.gt !== undefined) {
    const bound = timestampMs(range.gt);
    tests.push((time) => time > bound);
  }
  if (range.gte !== undefined) {
    const bound = timestampMs(range.gte);
    tests.push((time) => time >= bound);
  }
  if (range.lt !== undefined) {
    const bound = timestampMs(range.lt);
    tests.push((time) => time < bound);
  }
  if (range.lte !== undefined) {
    const bound = timestampMs(range.lte);
    tests.push((time) => time <= bound);
  }
  if (range.except !== undefined) {
    const from = timestampMs(range.except.gte);
    const to = timestampMs(range.except.lt);
    tests.push((time) => time < from || time >= to);
  }
  const all = every(tests);
  return (value) => value !== null && all(Date.parse(value));
}

/** The fields a cache of rows can hold for filtering: all a filter reads but `lastAccessed`. */
export type StableMemoryFields = Pick<
  MemoryRecord,
  'id' | 'validTo' | ScalarTagField | ListTagField | 'createdAt' | 'eventDate' | 'pinned'
>;

/** Timestamps that never change once a record is stored (unlike `lastAccessed`). */
const STABLE_DATE_FIELDS = ['createdAt', 'eventDate'] as const;

/**
 * Compiles every condition of `filter` except a `lastAccessed` range (which it ignores: callers
 * check for one first) into a predicate over the stable fields, for row caches that do not follow
 * access times. Throws a ValidationError for a date bound that is not a timestamp.
 */
export function compileStableMemoryFilter(
  filter: Omit<Partial<MemoryFilter>, 'lastAccessed'>,
): (record: StableMemoryFields) => boolean {
  const tests: ((record: StableMemoryFields) => boolean)[] = [];
  if (filter.includeSuperseded !== true) tests.push((record) => record.validTo === null);
  if (filter.ids !== undefined) {
    const ids = new Set(filter.ids);
    tests.push((record) => ids.has(record.id));
  }
  for (const field of SCALAR_TAG_FIELDS) {
    const condition = filter[field];
    if (condition === undefined) continue;
    const test = scalarTest(condition);
    tests.push((record) => test(record[field]));
  }
  for (const field of LIST_TAG_FIELDS) {
    const condition = filter[field];
    if (condition === undefined) continue;
    const test = listTest(condition);
    tests.push((record) => test(record[field]));
  }
  for (const field of STABLE_DATE_FIELDS) {
    const condition = filter[field];
    if (condition === undefined) continue;
    const test = dateTest(condition);
    tests.push((record) => test(record[field]));
  }
  if (filter.pinned !== undefined) {
    const pinned = filter.pinned;
    tests.push((record) => record.pinned === pinned);
  }
  return every(tests);
}

/**
 * Compiles `filter` once into a predicate (sets built, bounds parsed), for use over many records.
 * Throws a ValidationError for a date bound that is not a timestamp.
 */
export function compileMemoryFilter(filter: Partial<MemoryFilter>): MemoryPredicate {
  const stable = compileStableMemoryFilter(filter);
  if (filter.lastAccessed === undefined) return stable;
  const accessed = dateTest(filter.lastAccessed);
  return (record) => stable(record) && accessed(record.lastAccessed);
}

/** Whether `record` matches `filter` (see {@link MemoryPredicate} for the rules). */
export function matchesMemoryFilter(record: MemoryRecord, filter: Partial<MemoryFilter>): boolean {
  return compileMemoryFilter(filter)(record);
}
