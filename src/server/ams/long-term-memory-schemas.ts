import { z } from 'zod';
import { writableMemoryTypeSchema } from '../../core/schemas/memory-record.js';
import { MAX_MEMORY_BATCH } from '../../engine/long-term/long-term-memory.js';
import { laxInteger, plainObject } from '../lax-fields.js';
import { amsDateTime } from './ams-datetime.js';
import { amsFilterFields } from './ams-filters.js';
import { amsEnum, bounded, laxBoolean, laxNumber } from './ams-scalars.js';
import { optionalText, tagList, valueError } from './working-memory-schemas.js';

const memoryType = writableMemoryTypeSchema;

/** A MemoryRecord to create (§2.2, §4.7). Server-owned fields (hash, counts, persisted_at) are ignored. */
export const amsRecordInputSchema = z.object({
  id: z.string().max(128),
  text: z.string(),
  session_id: optionalText(),
  user_id: optionalText(),
  namespace: optionalText(),
  last_accessed: amsDateTime().nullable().optional(),
  created_at: amsDateTime().nullable().optional(),
  updated_at: amsDateTime().nullable().optional(),
  pinned: laxBoolean().optional(),
  topics: tagList('topics'),
  entities: tagList('entities'),
  extracted_from: tagList('extracted_from'),
  discrete_memory_extracted: z.enum(['t', 'f']).default('t'),
  memory_type: memoryType.default('semantic'),
  event_date: amsDateTime().nullable().optional(),
  extraction_strategy: z.string().max(256).default('discrete'),
  extraction_strategy_config: plainObject().default({}),
  metadata: plainObject().default({}),
});
export type AmsRecordInput = z.output<typeof amsRecordInputSchema>;

/** CreateMemoryRecordRequest (§4.7). */
export const createMemoriesBodySchema = z.object({
  memories: z
    .array(amsRecordInputSchema)
    .max(MAX_MEMORY_BATCH)
    .superRefine((memories, context) => {
      for (const [index, memory] of memories.entries()) {
        for (const field of ['id', 'text'] as const) {
          if (memory[field] !== '') continue;
          const message = `Memory at index ${index} has empty ${field}`;
          context.addIssue({ code: 'custom', path: [index, field], message, params: valueError(message) });
        }
      }
    }),
  deduplicate: laxBoolean().default(true),
});

const optionalNumber = () => laxNumber().nullable().optional();

/** Orders of engram's `sort` search extension. */
const SEARCH_SORTS = ['score', 'created_desc', 'created_asc'] as const;

/** SearchRequest (§4.8), shared by the search route and the memory prompt's `long_term_search`. */
export const searchBodySchema = z.object({
  text: z.string().nullable().default(null),
  /** Absent: engram's best ranking (see `resolveSearchMode`); AMS's own default is `semantic`. */
  search_mode: amsEnum(['semantic', 'keyword', 'hybrid'] as const).optional(),
  /** Weight of the vector ranking in `hybrid` (text gets 1 − alpha); absent: engram's weights. */
  hybrid_alpha: bounded(laxNumber(), 0, 1).optional(),
  text_scorer: z.string().default('BM25STD'),
  ...amsFilterFields,
  distance_threshold: optionalNumber(),
  limit: bounded(laxInteger(), 1, 100).default(10),
  offset: bounded(laxInteger(), 0).default(0),
  recency_boost: laxBoolean().nullable().optional(),
  recency_semantic_weight: optionalNumber(),
  recency_recency_weight: optionalNumber(),
  recency_freshness_weight: optionalNumber(),
  recency_novelty_weight: optionalNumber(),
  recency_half_life_last_access_days: optionalNumber(),
  recency_half_life_created_days: optionalNumber(),
  server_side_recency: laxBoolean().nullable().optional(),
  /**
   * engram extension (not in AMS): `score` (absent: the ranking, as in AMS), `created_desc` or
   * `created_asc`, applied to the whole result before paging.
   */
  sort: amsEnum(SEARCH_SORTS)
    .optional()
    .meta({
      type: 'string',
      enum: [...SEARCH_SORTS],
      description:
        'engram extension (not in AMS): order of the whole result before paging; absent or `score` = the ranking',
    }),
});
export type AmsSearchBody = z.output<typeof searchBodySchema>;

/** `optimize_query` of search and prompt: accepted, ignored (engram does not rewrite queries). */
export const optimizeQuerySchema = z.object({ optimize_query: laxBoolean().default(false) });

export const memoryPathSchema = z.object({ memory_id: z.string().min(1).max(128) });

/** EditMemoryRecordRequest (§4.10): nulls and unknown keys are dropped. */
export const editBodySchema = z.object({
  text: z.string().nullable().optional(),
  topics: tagList('topics'),
  entities: tagList('entities'),
  memory_type: memoryType.nullable().optional(),
  namespace: optionalText(),
  user_id: optionalText(),
  session_id: optionalText(),
  event_date: amsDateTime().nullable().optional(),
  pinned: laxBoolean().nullable().optional(),
});

/**
 * `DELETE /v1/long-term-memory`: `memory_ids` repeated (read as a list, unlike other queries), at
 * most MAX_MEMORY_BATCH, counted before any id is looked at.
 */
export const deleteQuerySchema = z.object({
  memory_ids: z.array(z.string().max(128)).max(MAX_MEMORY_BATCH).default([]),
});

/** Scope of compaction (§4.12). */
export const compactQuerySchema = z.object({
  namespace: z.string().max(256).optional(),
  user_id: z.string().max(256).optional(),
});

/** Scope and mode of forget (§4.13); `dry_run` defaults to true. */
export const forgetQuerySchema = compactQuerySchema.extend({
  session_id: z.string().max(256).optional(),
  limit: bounded(laxInteger(), 1, 100_000).default(1_000),
  dry_run: laxBoolean().default(true),
});

export const forgetPolicySchema = z.object({
  max_age_days: optionalNumber(),
  max_inactive_days: optionalNumber(),
  hard_age_multiplier: laxNumber().nullable().default(12),
  budget: bounded(laxInteger(), 0).nullable().optional(),
  memory_type_allowlist: z.array(z.string()).nullable().optional(),
});
export type ForgetPolicy = z.output<typeof forgetPolicySchema>;

export const forgetBodySchema = z.object({
  policy: forgetPolicySchema,
  pinned_ids: z.array(z.string()).nullable().optional(),
});

/** Response schemas, for the OpenAPI document. */
const nullableText = z.string().nullable();
export const amsRecordSchema = z.object({
  id: z.string(),
  text: z.string(),
  session_id: nullableText,
  user_id: nullableText,
  namespace: nullableText,
  last_accessed: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  pinned: z.boolean(),
  access_count: z.number().int(),
  topics: z.array(z.string()),
  entities: z.array(z.string()),
  memory_hash: nullableText,
  discrete_memory_extracted: z.enum(['t', 'f']),
  memory_type: memoryType,
  persisted_at: nullableText,
  extracted_from: z.array(z.string()),
  event_date: nullableText,
  extraction_strategy: z.string(),
  extraction_strategy_config: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()),
});
export const amsResultSchema = amsRecordSchema.extend({
  dist: z.number(),
  score: z.number().nullable(),
  score_type: z.enum(['semantic', 'keyword', 'hybrid']).nullable(),
});
export const searchResponseSchema = z.object({
  memories: z.array(amsResultSchema),
  total: z.number().int(),
  next_offset: z.number().int().nullable(),
});
export const ackSchema = z.object({ status: z.string() });
export const forgetResponseSchema = z.object({
  scanned: z.number().int(),
  deleted: z.number().int(),
  deleted_ids: z.array(z.string()),
  dry_run: z.boolean(),
});

/** Query of the history route: how many versions, newest first, from below which version. */
export const historyQuerySchema = z.object({
  limit: bounded(laxInteger(), 1, 1_000).default(100),
  /** The previous page's `next_before_version`: versions numbered below it. */
  before_version: bounded(laxInteger(), 1, Number.MAX_SAFE_INTEGER).optional(),
});

/** One version of a memory (engram extension; `toAmsVersion`). */
export const memoryVersionSchema = z.object({
  version: z.number().int(),
  text: z.string(),
  memory_type: z.string(),
  namespace: nullableText,
  user_id: nullableText,
  session_id: nullableText,
  agent_id: nullableText,
  document_id: nullableText,
  topics: z.array(z.string()),
  entities: z.array(z.string()),
  event_date: nullableText,
  pinned: z.boolean(),
  memory_hash: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  updated_at: z.string(),
  valid_from: z.string(),
  valid_to: nullableText,
  written_by: z.enum(['user', 'agent', 'llm', 'api', 'system']),
});

/**
 * The history route's answer: the memory's (stable) id and a page of its versions, newest first;
 * `next_before_version` asks for the next page, null once this one reaches the oldest version.
 */
export const memoryHistorySchema = z.object({
  id: z.string(),
  versions: z.array(memoryVersionSchema),
  next_before_version: z.number().int().nullable(),
});
