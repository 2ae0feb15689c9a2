import { z } from 'zod';
import { laxInteger } from '../lax-fields.js';
import { amsModelNames } from './ams-model-windows.js';
import { bounded, laxBoolean } from './ams-scalars.js';
import { searchBodySchema } from './long-term-memory-schemas.js';

/** The prompt's `session` (§4.14); `long_term_memory_strategy` is accepted and unused, as in AMS. */
export const promptSessionSchema = z.object({
  session_id: z.string().min(1).max(256),
  namespace: z.string().max(256).nullable().optional(),
  user_id: z.string().max(256).nullable().optional(),
  model_name: z.enum(amsModelNames).nullable().optional(),
  // The Python client sends it as a string.
  context_window_max: bounded(laxInteger(), 1).nullable().optional(),
});

/** MemoryPromptRequest (§4.14): `long_term_search` is a SearchRequest, a boolean or null. */
export const memoryPromptBodySchema = z.object({
  query: z.string(),
  session: promptSessionSchema.nullable().optional(),
  long_term_search: z.union([laxBoolean(), searchBodySchema]).nullable().optional(),
});
export type MemoryPromptBody = z.output<typeof memoryPromptBodySchema>;

const textContentSchema = z.object({
  type: z.literal('text'),
  text: z.string(),
  annotations: z.null(),
  _meta: z.null(),
});

/** Response: MCP prompt messages (content is always a TextContent object) and the hits used. */
export const memoryPromptResponseSchema = z.object({
  messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: textContentSchema })),
  long_term_memories: z.array(z.record(z.string(), z.unknown())).nullable(),
});
