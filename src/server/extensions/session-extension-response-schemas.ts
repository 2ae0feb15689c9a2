import { z } from 'zod';
import { amsMessageResponseSchema } from '../ams/working-memory-response-schemas.js';

const dateTime = () => z.string().meta({ format: 'date-time' });

/** A session without its messages (`toSessionStateBody`); `version` is also the ETag. */
export const sessionStateResponseSchema = z.object({
  session_id: z.string(),
  namespace: z.string().nullable(),
  user_id: z.string().nullable(),
  version: z.number().int(),
  data: z.record(z.string(), z.unknown()).nullable(),
  context: z.string().nullable(),
  ttl_seconds: z.number().int().nullable(),
  message_count: z.number().int(),
  tokens: z.number().int(),
  created_at: dateTime(),
  updated_at: dateTime(),
  expires_at: dateTime().nullable(),
});

/** The append's answer: the session after it and the stored messages. */
export const appendMessagesResponseSchema = z.object({
  session: sessionStateResponseSchema,
  messages: z.array(amsMessageResponseSchema),
});
