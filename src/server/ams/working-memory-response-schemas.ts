import { z } from 'zod';

/** Datetimes in answers: pydantic's UTC form (`Z`, no fraction or six digits). */
const dateTime = () => z.string().meta({ format: 'date-time' });
const strategySchema = z.object({
  strategy: z.enum(['discrete', 'summary', 'preferences', 'custom']),
  config: z.record(z.string(), z.unknown()),
});

/** MemoryMessage as answered (`toAmsMessage`). */
export const amsMessageResponseSchema = z.object({
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  content: z.string(),
  id: z.string(),
  created_at: dateTime(),
  persisted_at: dateTime().nullable(),
  discrete_memory_extracted: z.enum(['t', 'f']),
  summarized: z.boolean().optional().meta({
    description:
      'engram extension, only with `include_summarized=true`: whether the running summary covers the message',
  }),
});

/** A working-memory item as the full 21-field MemoryRecord (`toAmsMemory`). */
export const amsMemoryResponseSchema = z.object({
  id: z.string(),
  text: z.string(),
  session_id: z.string().nullable(),
  user_id: z.string().nullable(),
  namespace: z.string().nullable(),
  last_accessed: dateTime(),
  created_at: dateTime(),
  updated_at: dateTime(),
  pinned: z.boolean(),
  access_count: z.number().int(),
  topics: z.array(z.string()),
  entities: z.array(z.string()),
  memory_hash: z.string().nullable(),
  discrete_memory_extracted: z.enum(['t', 'f']),
  memory_type: z.enum(['semantic', 'episodic', 'message']),
  persisted_at: dateTime().nullable(),
  extracted_from: z.array(z.string()).nullable(),
  event_date: dateTime().nullable(),
  extraction_strategy: strategySchema.shape.strategy,
  extraction_strategy_config: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()),
});

/** WorkingMemoryResponse (§2.5): every field present, `null` where unset. */
export const workingMemoryResponseSchema = z.object({
  messages: z.array(amsMessageResponseSchema),
  memories: z.array(amsMemoryResponseSchema),
  data: z.record(z.string(), z.unknown()).nullable(),
  context: z.string().nullable(),
  user_id: z.string().nullable(),
  tokens: z.number().int(),
  session_id: z.string(),
  namespace: z.string().nullable(),
  long_term_memory_strategy: strategySchema,
  ttl_seconds: z.number().int().nullable(),
  last_accessed: dateTime(),
  created_at: dateTime(),
  updated_at: dateTime(),
  context_percentage_total_used: z.number().nullable(),
  context_percentage_until_summarization: z.number().nullable(),
});

/** The session list (§4.2). */
export const sessionListResponseSchema = z.object({ sessions: z.array(z.string()), total: z.number().int() });

/** DELETE's answer. */
export const statusOkResponseSchema = z.object({ status: z.literal('ok') });
