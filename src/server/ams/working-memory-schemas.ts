import { z } from 'zod';
import {
  MAX_CONTEXT_CHARS,
  MAX_SESSION_MEMORIES,
  MAX_SESSION_MESSAGES,
  MAX_TTL_SECONDS,
} from '../../core/schemas/session.js';
import { parseInSlices } from '../../engine/parse-in-slices.js';
import { FUTURE_TOLERANCE_MS } from '../../engine/sessions/prepare-messages.js';
import { laxInteger, plainObject } from '../lax-fields.js';
import { amsDateTime } from './ams-datetime.js';
import { amsModelNames } from './ams-model-windows.js';
import { laxBoolean } from './ams-scalars.js';

export const optionalText = () => z.string().nullable().optional();
export const valueError = (message: string) => ({
  pydantic: { type: 'value_error', msg: `Value error, ${message}`, ctx: { error: {} } },
});

/** A list of tags; AMS stores them comma-separated, so an element with a comma is a 422. */
export const tagList = (field: string) =>
  z
    .array(z.string())
    .nullable()
    .optional()
    .superRefine((tags, context) => {
      for (const [index, tag] of (tags ?? []).entries()) {
        if (!tag.includes(',')) continue;
        const message = `${field}[${index}] contains a comma: '${tag}'. Commas are not allowed because they are used as delimiters in storage.`;
        context.addIssue({ code: 'custom', message, params: valueError(message) });
      }
    });

/** `ttl_seconds`: whole seconds from 1 to engram's ten-year maximum. */
export const ttlSecondsField = () => laxInteger().pipe(z.number().min(1).max(MAX_TTL_SECONDS));

/** MemoryMessage (§2.1). Roles are engram's four; engram rejects any other role. */
export const amsMessageSchema = z
  .object({
    role: z.enum(['user', 'assistant', 'system', 'tool']),
    content: z.string(),
    id: z.string().min(1).max(128).optional(),
    created_at: amsDateTime().nullable().optional(),
    persisted_at: amsDateTime().nullable().optional(),
    discrete_memory_extracted: z.enum(['t', 'f']).optional(),
  })
  .superRefine((message, context) => {
    if (!message.created_at) return;
    const now = Date.now();
    if (Date.parse(message.created_at) - now <= FUTURE_TOLERANCE_MS) return;
    const text =
      `created_at cannot be more than ${FUTURE_TOLERANCE_MS / 1_000} seconds in the future. ` +
      `Received: ${message.created_at}, now: ${new Date(now).toISOString()}`;
    context.addIssue({ code: 'custom', path: ['created_at'], message: text, params: valueError(text) });
  });
export type AmsMessage = z.output<typeof amsMessageSchema>;

/** MemoryRecord as an item of working-memory `memories` (§2.2); fields engram does not keep are ignored. */
export const amsMemoryItemSchema = z.object({
  id: z.string().max(128).optional(),
  text: z.string(),
  session_id: optionalText(),
  user_id: optionalText(),
  namespace: optionalText(),
  topics: tagList('topics'),
  entities: tagList('entities'),
  extracted_from: tagList('extracted_from'),
  memory_type: z.enum(['semantic', 'episodic', 'message']).default('message'),
  created_at: amsDateTime().optional(),
  event_date: amsDateTime().nullable().optional(),
  persisted_at: amsDateTime().nullable().optional(),
  metadata: plainObject().optional(),
});
export type AmsMemoryItem = z.output<typeof amsMemoryItemSchema>;

// Lengths are checked before any item is parsed: an oversize batch is refused without per-item work.
const memoryList = z
  .array(amsMemoryItemSchema)
  .max(MAX_SESSION_MEMORIES)
  .superRefine((memories, context) => {
    for (const [index, memory] of memories.entries()) {
      for (const field of ['id', 'text'] as const) {
        if (memory[field] !== '') continue;
        const message = `Memory at index ${index} has empty ${field}`;
        context.addIssue({ code: 'custom', path: [index, field], message, params: valueError(message) });
      }
    }
  });

/** UpdateWorkingMemory, the PUT body (§2.5). Unknown fields (e.g. `session_id`) are dropped. */
export const amsWorkingMemoryBodySchema = z.object({
  messages: z.array(amsMessageSchema).max(MAX_SESSION_MESSAGES).default([]),
  memories: memoryList.default([]),
  data: plainObject().nullable().default(null),
  context: z.string().max(MAX_CONTEXT_CHARS).nullable().default(null),
  user_id: z.string().max(256).nullable().default(null),
  namespace: z.string().max(256).nullable().default(null),
  tokens: laxInteger().optional(),
  long_term_memory_strategy: z
    .object({
      strategy: z.enum(['discrete', 'summary', 'preferences', 'custom']).default('discrete'),
      config: plainObject().default({}),
    })
    .default({ strategy: 'discrete', config: {} }),
  ttl_seconds: ttlSecondsField().nullable().default(null),
  created_at: amsDateTime().optional(),
  last_accessed: amsDateTime().optional(),
  updated_at: amsDateTime().optional(),
});
export type AmsWorkingMemoryBody = z.output<typeof amsWorkingMemoryBodySchema>;

/** The PUT body validated one message at a time (up to 100,000 of them), with the same result. */
export const amsWorkingMemoryBodyInSlices = parseInSlices(amsWorkingMemoryBodySchema, 'messages');

/** The `session_id` path parameter. */
export const sessionPathSchema = z.object({ session_id: z.string().min(1).max(256) });

/** `namespace` and `user_id`: the rest of the session key on GET, DELETE and engram's extensions. */
export const sessionScopeQuerySchema = z.object({
  namespace: z.string().max(256).optional(),
  user_id: z.string().max(256).optional(),
});

/** Model parameters of GET and PUT: token budget for truncation and the context percentages. */
export const modelQuerySchema = z.object({
  model_name: z.enum(amsModelNames).optional(),
  context_window_max: laxInteger().pipe(z.number().min(1)).optional(),
});

export const getWorkingMemoryQuerySchema = sessionScopeQuerySchema.extend({
  ...modelQuerySchema.shape,
  recent_messages_limit: laxInteger().optional(),
  /**
   * engram extension (not in AMS; AMS clients never send it, so their answer is unchanged): also
   * the messages the running summary covers, each message then marked with `summarized`.
   */
  include_summarized: laxBoolean().optional().meta({
    type: 'boolean',
    description:
      'engram extension (not in AMS): also return the messages the running summary (`context`) covers; every message then carries `summarized`',
    'x-engram-extension': true,
  }),
});

export const listSessionsQuerySchema = sessionScopeQuerySchema.extend({
  limit: laxInteger().pipe(z.number().min(1).max(100)).default(20),
  offset: laxInteger().pipe(z.number().min(0)).default(0),
});
