import { z } from 'zod';
import type { DateRange, MemoryFilterInput, TagFilter } from '../core/schemas/memory-record.js';
import { amsDateTime } from '../server/ams/ams-datetime.js';

/** A date-time argument: ISO 8601 (offset optional, naive = UTC), as AMS accepts it; ISO UTC out. */
export const dateTimeArgument = () =>
  z
    .string()
    // No date-time is longer (microseconds and an offset: 32); the bound keeps errors short too.
    .max(64)
    .describe('ISO 8601 date-time, e.g. "2024-01-15T09:30:00Z"')
    .transform((text, context) => {
      const parsed = amsDateTime().safeParse(text);
      if (parsed.success) return parsed.data;
      context.addIssue({ code: 'custom', message: `Not an ISO 8601 date-time: ${JSON.stringify(text)}` });
      return z.NEVER;
    });

const values = z.array(z.string().max(256)).min(1).max(1_000);

/**
 * An AMS tag filter (`{"eq": "x"}`, `{"any": ["a", "b"]}`); every given operator must hold. The
 * clients' aliases are accepted (`in_` = any, `not_eq` = ne, `not_in` = none). Unknown operators
 * (e.g. `startswith`) are rejected rather than ignored: ignoring one would widen the result.
 */
export const tagFilterArgument = z
  .strictObject({
    eq: z.string().max(256).optional(),
    ne: z.string().max(256).optional(),
    any: values.optional(),
    all: values.optional(),
    none: values.optional(),
    in_: values.optional(),
    not_eq: z.string().max(256).optional(),
    not_in: values.optional(),
    exists: z.boolean().optional(),
  })
  .refine(
    (filter) => !(filter.any && filter.in_) && !(filter.ne !== undefined && filter.not_eq !== undefined),
    {
      message: 'Give any or in_, and ne or not_eq, not both',
    },
  )
  .describe('Tag filter: eq, ne, any, all, none (aliases in_, not_eq, not_in), exists');
export type TagFilterArgument = z.output<typeof tagFilterArgument>;

/** An AMS date filter; `between` is [from, to] inclusive and `eq` an exact instant. */
export const dateFilterArgument = z
  .strictObject({
    gt: dateTimeArgument().optional(),
    gte: dateTimeArgument().optional(),
    lt: dateTimeArgument().optional(),
    lte: dateTimeArgument().optional(),
    eq: dateTimeArgument().optional(),
    between: z.tuple([dateTimeArgument(), dateTimeArgument()]).optional(),
  })
  .describe('Date filter: gt, gte, lt, lte, eq, between [from, to] (ISO 8601)');
export type DateFilterArgument = z.output<typeof dateFilterArgument>;

/** The filter arguments shared by the search tools, named as AMS names them. */
export const filterArguments = {
  session_id: tagFilterArgument.optional(),
  namespace: tagFilterArgument.optional(),
  user_id: tagFilterArgument.optional(),
  topics: tagFilterArgument.optional(),
  entities: tagFilterArgument.optional(),
  memory_type: tagFilterArgument.optional(),
  created_at: dateFilterArgument.optional(),
  last_accessed: dateFilterArgument.optional(),
  event_date: dateFilterArgument.optional(),
};
type FilterArguments = { [K in keyof typeof filterArguments]?: z.output<(typeof filterArguments)[K]> };

function toTagFilter(filter: TagFilterArgument): TagFilter {
  const none = filter.none && filter.not_in ? [...new Set([...filter.none, ...filter.not_in])] : undefined;
  const entries = {
    eq: filter.eq,
    ne: filter.ne ?? filter.not_eq,
    any: filter.any ?? filter.in_,
    all: filter.all,
    none: none ?? filter.none ?? filter.not_in,
    exists: filter.exists,
  };
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}

function toDateRange(filter: DateFilterArgument): DateRange {
  const [from, to] = filter.between ?? [];
  // Several lower (upper) bounds all hold when the tightest one does.
  const latest = (...dates: (string | undefined)[]) =>
    dates.filter((date) => date !== undefined).sort((a, b) => Date.parse(b) - Date.parse(a))[0];
  const earliest = (...dates: (string | undefined)[]) =>
    dates.filter((date) => date !== undefined).sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  // `eq` matches its whole second, as the REST filter does (AMS compares whole seconds).
  const second = filter.eq === undefined ? undefined : Math.floor(Date.parse(filter.eq) / 1_000) * 1_000;
  const eqFrom = second === undefined ? undefined : new Date(second).toISOString();
  const eqBefore = second === undefined ? undefined : new Date(second + 1_000).toISOString();
  const gte = latest(filter.gte, eqFrom, from);
  const lte = earliest(filter.lte, to);
  const lt = earliest(filter.lt, eqBefore);
  return {
    ...(filter.gt !== undefined ? { gt: filter.gt } : {}),
    ...(lt !== undefined ? { lt } : {}),
    ...(gte !== undefined ? { gte } : {}),
    ...(lte !== undefined ? { lte } : {}),
  };
}

/**
 * engram's memory filter for the AMS filter arguments; absent arguments add no condition, and
 * procedures (engram's fourth memory type, unknown to AMS clients, pending ones unreviewed) are
 * always left out, as the REST search leaves them out.
 */
export function toMemoryFilter(filters: FilterArguments): MemoryFilterInput {
  const tag = (value: TagFilterArgument | undefined) =>
    value === undefined ? undefined : toTagFilter(value);
  const date = (value: DateFilterArgument | undefined) =>
    value === undefined ? undefined : toDateRange(value);
  const memoryType = tag(filters.memory_type) ?? {};
  const entries = {
    sessionId: tag(filters.session_id),
    namespace: tag(filters.namespace),
    userId: tag(filters.user_id),
    topics: tag(filters.topics),
    entities: tag(filters.entities),
    memoryType: { ...memoryType, none: [...(memoryType.none ?? []), 'procedural'] },
    createdAt: date(filters.created_at),
    lastAccessed: date(filters.last_accessed),
    eventDate: date(filters.event_date),
  };
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}
