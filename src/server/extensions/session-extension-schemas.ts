import { z } from 'zod';
import { amsMessageSchema, ttlSecondsField } from '../ams/working-memory-schemas.js';
import { plainObject } from '../lax-fields.js';

/** `POST /v1/working-memory/{session_id}/messages`: messages in AMS form, appended atomically. */
/** Most messages one append carries. */
export const MAX_APPEND_MESSAGES = 10_000;

export const appendMessagesBodySchema = z.object({
  messages: z.array(amsMessageSchema).min(1).max(MAX_APPEND_MESSAGES),
  /** TTL of a session this append creates; an existing session keeps its own. */
  ttl_seconds: ttlSecondsField().nullable().optional(),
});

/**
 * `PATCH /v1/working-memory/{session_id}`, a JSON merge patch (RFC 7386) of the session: `data`
 * is merged key by key (null deletes a key), `context` and `ttl_seconds` are replaced (null clears).
 */
export const sessionPatchBodySchema = z.object({
  data: plainObject().optional(),
  context: z.string().nullable().optional(),
  ttl_seconds: ttlSecondsField().nullable().optional(),
});
