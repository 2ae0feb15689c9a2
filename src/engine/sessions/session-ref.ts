import { z } from 'zod';
import { parseWith } from '../../core/errors.js';
import type { SessionKey } from '../../core/schemas/session.js';

/** How callers name a session: only `sessionId` is required. */
export const sessionRefSchema = z.object({
  sessionId: z.string().min(1, 'sessionId cannot be empty').max(256),
  namespace: z.string().max(256).nullable().default(null),
  userId: z.string().max(256).nullable().default(null),
  tenantId: z.string().min(1).max(256).default('default'),
});
export type SessionRef = z.input<typeof sessionRefSchema>;

/** Validates a reference and fills its defaults (tenant `default`, no namespace, no user). */
export function toSessionKey(ref: SessionRef): SessionKey {
  return parseWith(sessionRefSchema, ref, 'session reference');
}
