import { z } from 'zod';
import { laxInteger, plainObject } from '../lax-fields.js';
import { laxBoolean } from './ams-scalars.js';
import { optionalText } from './working-memory-schemas.js';

/** The AMS names of the fields a view may group by, and of those its filters may use (§4.15). */
export const amsGroupFields = ['user_id', 'namespace', 'session_id', 'memory_type'] as const;
export const amsFilterKeys = [...amsGroupFields, 'extraction_strategy', 'topics', 'event_date'] as const;

/** CreateSummaryViewRequest. `source` and the keys are checked by the route (400s, as in AMS). */
export const createSummaryViewBodySchema = z.object({
  name: optionalText(),
  source: z.enum(['long_term', 'working_memory']),
  group_by: z.array(z.string().max(256)).max(100).default([]),
  filters: plainObject().default({}),
  time_window_days: laxInteger().pipe(z.number().min(1).max(36_500)).nullable().optional(),
  continuous: laxBoolean().default(false),
  prompt: z.string().max(20_000).nullable().optional(),
  model_name: z.string().max(256).nullable().optional(),
});
export type CreateSummaryViewBody = z.output<typeof createSummaryViewBodySchema>;

/** SummaryView. */
export const summaryViewSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  source: z.literal('long_term'),
  group_by: z.array(z.enum(amsGroupFields)),
  filters: z.record(z.string(), z.unknown()),
  time_window_days: z.number().int().nullable(),
  continuous: z.boolean(),
  prompt: z.string().nullable(),
  model_name: z.string().nullable(),
});

export const viewPathSchema = z.object({ view_id: z.string().min(1).max(256) });

/** RunSummaryViewPartitionRequest: a value per group-by field. */
export const runPartitionBodySchema = z.object({
  group: z.record(z.string().max(256), z.string().max(256)),
});

/** SummaryViewPartitionResult. */
export const partitionResultSchema = z.object({
  view_id: z.string(),
  group: z.record(z.string(), z.string()),
  summary: z.string(),
  memory_count: z.number().int(),
  empty: z.boolean(),
  empty_reason: z.string().nullable(),
  computed_at: z.string(),
});

/** Stored partitions whose group has these values. */
export const partitionsQuerySchema = z.object({
  user_id: z.string().max(256).optional(),
  namespace: z.string().max(256).optional(),
  session_id: z.string().max(256).optional(),
  memory_type: z.string().max(256).optional(),
});

/** RunSummaryViewRequest: `task_id` makes a retried request return the same task; other keys are ignored. */
export const runViewBodySchema = z.object({
  task_id: z.string().min(1).max(256).nullable().optional(),
});
