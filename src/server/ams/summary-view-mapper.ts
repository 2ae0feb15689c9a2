import type { DateRange } from '../../core/schemas/memory-record.js';
import type {
  SummaryGroup,
  SummaryGroupField,
  SummaryPartition,
  SummaryView,
  SummaryViewFilters,
  SummaryViewInput,
} from '../../engine/long-term/summary-views.js';
import { formatAmsDateTime } from './ams-datetime.js';
import { amsDateFilterSchema, toDateRange } from './ams-filters.js';
import { AmsHttpError } from './ams-http-error.js';
import { amsFilterKeys, amsGroupFields, type CreateSummaryViewBody } from './summary-view-schemas.js';

type AmsGroupField = (typeof amsGroupFields)[number];
const engineNames: Record<AmsGroupField, SummaryGroupField> = {
  user_id: 'userId',
  namespace: 'namespace',
  session_id: 'sessionId',
  memory_type: 'memoryType',
};
const amsNames = Object.fromEntries(
  Object.entries(engineNames).map(([ams, engine]) => [engine, ams]),
) as Record<SummaryGroupField, AmsGroupField>;
const MEMORY_TYPES = ['semantic', 'episodic', 'message'];

const isGroupField = (key: string): key is AmsGroupField =>
  (amsGroupFields as readonly string[]).includes(key);
const invalid = (field: string, expected: string) =>
  new AmsHttpError(400, `Invalid value for filter ${field}: expected ${expected}`);

/** A scalar filter value as text (AMS compares `str(value)`). */
function scalar(field: string, value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalid(field, 'a non-empty string');
}

/** Engine filters for the AMS `filters` object: equality, `topics` any-of, an `event_date` range. */
function toEngineFilters(filters: Record<string, unknown>): SummaryViewFilters {
  const engine: SummaryViewFilters = {};
  for (const [key, value] of Object.entries(filters)) {
    if (value === null) continue;
    if (key === 'memory_type') {
      const type = scalar(key, value);
      if (!MEMORY_TYPES.includes(type)) throw invalid(key, "'semantic', 'episodic' or 'message'");
      engine.memoryType = type as SummaryViewFilters['memoryType'];
    } else if (isGroupField(key)) {
      engine[engineNames[key] as 'userId' | 'namespace' | 'sessionId'] = scalar(key, value);
    } else if (key === 'extraction_strategy') {
      engine.extractionStrategy = scalar(key, value);
    } else if (key === 'topics') {
      const topics = Array.isArray(value) ? value : [value];
      if (topics.length === 0) throw invalid(key, 'a topic or a non-empty list of topics');
      engine.topics = topics.map((topic) => scalar(key, topic));
    } else if (key === 'event_date') {
      const parsed = amsDateFilterSchema.safeParse(value);
      if (!parsed.success) throw invalid(key, 'a datetime filter such as {"gte": "2025-01-01T00:00:00Z"}');
      const range = toDateRange(parsed.data);
      if (range) engine.eventDate = range;
    }
  }
  return engine;
}

/** The engine input for a create body, after AMS's checks (400s with AMS's messages). */
export function toSummaryViewInput(body: CreateSummaryViewBody): SummaryViewInput {
  if (body.source !== 'long_term') {
    throw new AmsHttpError(
      400,
      "SummaryView.source must be 'long_term' for now; 'working_memory' is not yet supported.",
    );
  }
  const badGroups = body.group_by.filter((field) => !isGroupField(field));
  if (badGroups.length > 0) {
    throw new AmsHttpError(400, `Unsupported group_by fields: ${[...new Set(badGroups)].sort().join(', ')}`);
  }
  const badFilters = Object.keys(body.filters).filter(
    (key) => !(amsFilterKeys as readonly string[]).includes(key),
  );
  if (badFilters.length > 0) {
    throw new AmsHttpError(400, `Unsupported filter fields: ${badFilters.sort().join(', ')}`);
  }
  return {
    name: body.name ?? null,
    source: 'long_term',
    groupBy: [...new Set(body.group_by as AmsGroupField[])].map((field) => engineNames[field]),
    filters: toEngineFilters(body.filters),
    timeWindowDays: body.time_window_days ?? null,
    continuous: body.continuous,
    prompt: body.prompt ?? null,
    modelName: body.model_name ?? null,
  };
}

function toAmsDateFilter(range: DateRange): Record<string, string> {
  const bounds = ['gt', 'gte', 'lt', 'lte'] as const;
  return Object.fromEntries(
    bounds.flatMap((bound) => {
      const value = range[bound];
      return value === undefined ? [] : [[bound, formatAmsDateTime(value)]];
    }),
  );
}

/** SummaryView (§4.15). */
export function toAmsSummaryView(view: SummaryView) {
  const { filters } = view;
  const amsFilters: Record<string, unknown> = {};
  for (const field of ['userId', 'namespace', 'sessionId', 'memoryType'] as const) {
    const value = filters[field];
    if (value !== undefined) amsFilters[amsNames[field]] = value;
  }
  if (filters.extractionStrategy !== undefined) amsFilters.extraction_strategy = filters.extractionStrategy;
  if (filters.topics !== undefined) amsFilters.topics = filters.topics;
  if (filters.eventDate !== undefined) amsFilters.event_date = toAmsDateFilter(filters.eventDate);
  return {
    id: view.id,
    name: view.name,
    source: view.source,
    group_by: view.groupBy.map((field) => amsNames[field]),
    filters: amsFilters,
    time_window_days: view.timeWindowDays,
    continuous: view.continuous,
    prompt: view.prompt,
    model_name: view.modelName,
  };
}

/** An AMS group (keys already checked against the view) in engine names. */
export function toEngineGroup(group: Record<string, string>): SummaryGroup {
  return Object.fromEntries(
    Object.entries(group).flatMap(([key, value]) => (isGroupField(key) ? [[engineNames[key], value]] : [])),
  );
}

/** SummaryViewPartitionResult. */
export function toAmsPartition(partition: SummaryPartition) {
  return {
    view_id: partition.viewId,
    group: Object.fromEntries(
      Object.entries(partition.group).map(([field, value]) => [amsNames[field as SummaryGroupField], value]),
    ),
    summary: partition.summary,
    memory_count: partition.memoryCount,
    empty: partition.empty,
    empty_reason: partition.emptyReason,
    computed_at: formatAmsDateTime(partition.computedAt),
  };
}

/** AMS's message when a partition's group keys differ from the view's `group_by` (Python list text). */
export function groupKeysMismatch(keys: string[], groupBy: string[]): AmsHttpError {
  const list = (values: string[]) =>
    `[${[...values]
      .sort()
      .map((value) => `'${value}'`)
      .join(', ')}]`;
  return new AmsHttpError(400, `group keys ${list(keys)} must exactly match view.group_by ${list(groupBy)}`);
}
