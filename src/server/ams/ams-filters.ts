import { z } from 'zod';
import {
  type DateRange,
  MAX_FILTER_VALUES,
  type MemoryFilterInput,
  type TagFilter,
} from '../../core/schemas/memory-record.js';
import { amsDateTime } from './ams-datetime.js';
import { valueError } from './working-memory-schemas.js';

const AMS_MEMORY_TYPES = ['semantic', 'episodic', 'message'] as const;

type Issue = (message: string) => void;
const issuer =
  (context: z.RefinementCtx): Issue =>
  (message) =>
    context.addIssue({ code: 'custom', message, params: valueError(message) });

/**
 * A tag filter (§3.1) with the operators the clients advertise but AMS lacks (§3.2): `in_` ≡
 * `any`, `not_eq` ≡ `ne`, `not_in` and `none` ≡ "none of". `field` and unknown keys are ignored.
 */
function tagFilterSchema<T extends z.ZodType<string>>(value: T, withPrefix: boolean) {
  // Counted before any value is parsed (zod checks an array's length first).
  const list = z.array(value).max(MAX_FILTER_VALUES);
  return z
    .object({
      eq: value.optional(),
      ne: value.optional(),
      any: list.optional(),
      all: list.optional(),
      // memory_type has no `startswith` in AMS: there the key is unknown, hence ignored.
      ...(withPrefix ? { startswith: z.string().optional() } : {}),
      in_: list.optional(),
      not_eq: value.optional(),
      not_in: list.optional(),
      none: list.optional(),
    })
    .superRefine((filter, context) => {
      const fail = issuer(context);
      if (filter.eq !== undefined && filter.ne !== undefined) fail('eq and ne cannot both be set');
      if (filter.any !== undefined && filter.all !== undefined) fail('any and all cannot both be set');
      if (filter.any !== undefined && filter.in_ !== undefined) fail('any and in_ cannot both be set');
      if (filter.any?.length === 0) fail('any cannot be an empty list');
      if (filter.all?.length === 0) fail('all cannot be an empty list');
      const { startswith } = filter as { startswith?: string };
      if (startswith !== undefined) {
        if (startswith === '') fail('startswith cannot be an empty string');
        const others = Object.entries(filter).filter(
          ([key, operand]) => key !== 'startswith' && operand !== undefined,
        );
        if (others.length > 0) fail('startswith cannot be combined with other operators');
      }
    });
}

export const amsTagFilterSchema = tagFilterSchema(z.string(), true);
export const amsMemoryTypeFilterSchema = tagFilterSchema(z.enum(AMS_MEMORY_TYPES), false);
export type AmsTagFilter = z.output<typeof amsTagFilterSchema>;
type AmsTypeFilter = z.output<typeof amsMemoryTypeFilterSchema>;

/** A datetime filter (§3.1): every operator applies (AND); `eq`/`ne` compare whole seconds. */
export const amsDateFilterSchema = z
  .object({
    gt: amsDateTime().optional(),
    lt: amsDateTime().optional(),
    gte: amsDateTime().optional(),
    lte: amsDateTime().optional(),
    eq: amsDateTime().optional(),
    ne: amsDateTime().optional(),
    // Two datetimes; a longer list is refused before any of it is parsed.
    between: z.array(amsDateTime()).max(2).optional(),
    inclusive: z.enum(['both', 'neither', 'left', 'right']).default('both'),
  })
  .superRefine((filter, context) => {
    if (filter.between === undefined) return;
    const fail = issuer(context);
    if (filter.between.length !== 2) fail('between must be a list of two datetimes');
    const clash = (['eq', 'ne', 'gt', 'lt', 'gte'] as const).filter((key) => filter[key] !== undefined);
    if (clash.length > 0) fail(`between cannot be combined with ${clash.join(', ')}`);
  });
type AmsDateFilter = z.output<typeof amsDateFilterSchema>;

/** The filter fields of a search body (§4.8), each optional and nullable. */
export const amsFilterFields = {
  session_id: amsTagFilterSchema.nullable().optional(),
  namespace: amsTagFilterSchema.nullable().optional(),
  topics: amsTagFilterSchema.nullable().optional(),
  entities: amsTagFilterSchema.nullable().optional(),
  user_id: amsTagFilterSchema.nullable().optional(),
  extraction_strategy: amsTagFilterSchema.nullable().optional(),
  memory_type: amsMemoryTypeFilterSchema.nullable().optional(),
  created_at: amsDateFilterSchema.nullable().optional(),
  last_accessed: amsDateFilterSchema.nullable().optional(),
  event_date: amsDateFilterSchema.nullable().optional(),
};
export type AmsFilters = {
  [K in keyof typeof amsFilterFields]?: z.output<(typeof amsFilterFields)[K]>;
};

/** engram's tag filter for an AMS one; undefined when it sets no operator (an empty filter filters nothing). */
export function toTagFilter(filter: AmsTagFilter | AmsTypeFilter | null | undefined): TagFilter | undefined {
  if (!filter) return undefined;
  const none = [
    ...(filter.not_eq !== undefined ? [filter.not_eq] : []),
    ...(filter.not_in ?? []),
    ...(filter.none ?? []),
  ];
  const any = filter.any ?? filter.in_;
  const tag: TagFilter = {
    ...(filter.eq !== undefined ? { eq: filter.eq } : {}),
    ...(filter.ne !== undefined ? { ne: filter.ne } : {}),
    ...(any !== undefined ? { any } : {}),
    ...(filter.all !== undefined ? { all: filter.all } : {}),
    ...(none.length > 0 ? { none } : {}),
    ...('startswith' in filter && typeof filter.startswith === 'string'
      ? { startswith: filter.startswith }
      : {}),
  };
  return Object.keys(tag).length > 0 ? tag : undefined;
}

const second = (iso: string) => Math.floor(Date.parse(iso) / 1_000) * 1_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** engram's date range for an AMS datetime filter; of two bounds of one kind the stricter wins. */
export function toDateRange(filter: AmsDateFilter | null | undefined): DateRange | undefined {
  if (!filter) return undefined;
  const range: DateRange = {};
  const lower = (key: 'gt' | 'gte', value: string) => {
    const current = range[key];
    if (current === undefined || Date.parse(value) > Date.parse(current)) range[key] = value;
  };
  const upper = (key: 'lt' | 'lte', value: string) => {
    const current = range[key];
    if (current === undefined || Date.parse(value) < Date.parse(current)) range[key] = value;
  };
  if (filter.gt !== undefined) lower('gt', filter.gt);
  if (filter.gte !== undefined) lower('gte', filter.gte);
  if (filter.lt !== undefined) upper('lt', filter.lt);
  if (filter.lte !== undefined) upper('lte', filter.lte);
  if (filter.eq !== undefined) {
    lower('gte', iso(second(filter.eq)));
    upper('lt', iso(second(filter.eq) + 1_000));
  }
  if (filter.ne !== undefined) {
    range.except = { gte: iso(second(filter.ne)), lt: iso(second(filter.ne) + 1_000) };
  }
  const [from, to] = filter.between ?? [];
  if (from !== undefined && to !== undefined) {
    const inclusive = filter.inclusive;
    lower(inclusive === 'both' || inclusive === 'left' ? 'gte' : 'gt', from);
    upper(inclusive === 'both' || inclusive === 'right' ? 'lte' : 'lt', to);
  }
  return Object.keys(range).length > 0 ? range : undefined;
}

/**
 * engram's MemoryFilter for the AMS filter fields. `extraction_strategy` is not a stored field in
 * engram: the caller resolves it (see `strategyIds`). Procedures (engram's fourth memory type,
 * unknown to AMS clients) are always left out.
 */
export function toMemoryFilter(filters: AmsFilters): MemoryFilterInput {
  const memoryType = toTagFilter(filters.memory_type) ?? {};
  const filter: MemoryFilterInput = {
    memoryType: { ...memoryType, none: [...(memoryType.none ?? []), 'procedural'] },
  };
  const tags = [
    ['sessionId', filters.session_id],
    ['namespace', filters.namespace],
    ['userId', filters.user_id],
    ['topics', filters.topics],
    ['entities', filters.entities],
  ] as const;
  for (const [key, value] of tags) {
    const tag = toTagFilter(value);
    if (tag) filter[key] = tag;
  }
  const dates = [
    ['createdAt', filters.created_at],
    ['lastAccessed', filters.last_accessed],
    ['eventDate', filters.event_date],
  ] as const;
  for (const [key, value] of dates) {
    const range = toDateRange(value);
    if (range) filter[key] = range;
  }
  return filter;
}
