import { z } from 'zod';
import { MAX_TTL_SECONDS } from '../../core/schemas/session.js';
import { amsMessageSchema } from '../ams/working-memory-schemas.js';
import { laxInteger, plainObject } from '../lax-fields.js';

const ttlSeconds = () => laxInteger().pipe(z.number().min(1).max(MAX_TTL_SECONDS)).nullable().optional();

/** `POST /v1/working-memory/{session_id}/messages`: messages in AMS form, appended atomically. */
export const appendMessagesBodySchema = z.object({
  messages: z.array(amsMessageSchema).min(1).max(10_000),
  /** TTL of a session this append creates; an existing session keeps its own. */
  ttl_seconds: ttlSeconds(),
});

/**
 * `PATCH /v1/working-memory/{session_id}`, a JSON merge patch (RFC 7386) of the session: `data`
 * is merged key by key (null deletes a key), `context` and `ttl_seconds` are replaced (null clears).
 */
export const sessionPatchBodySchema = z.object({
  data: plainObject().optional(),
  context: z.string().nullable().optional(),
  ttl_seconds: ttlSeconds(),
});
