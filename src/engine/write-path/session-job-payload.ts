import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parseWith } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { SessionState } from '../../core/schemas/session.js';
import type { Job } from '../../stores/job-store.js';
import type { SessionRef } from '../sessions/session-ref.js';

/**
 * What a write-path job names: the session (its tenant is the job's) and the session's `createdAt`,
 * which tells a session apart from a later one under the same id (deleted, then written again).
 */
export const sessionJobPayloadSchema = z.object({
  namespace: z.string().nullable(),
  userId: z.string().nullable(),
  sessionId: z.string().min(1),
  createdAt: z.string(),
});
export type SessionJobPayload = z.infer<typeof sessionJobPayloadSchema>;

export const sessionJobPayload = (state: SessionState): SessionJobPayload & JsonObject => ({
  namespace: state.namespace,
  userId: state.userId,
  sessionId: state.sessionId,
  createdAt: state.createdAt,
});

/** The session a job's payload names, in the job's tenant. */
export function sessionOfJob(payload: JsonObject, job: Job): SessionRef & SessionJobPayload {
  return { ...parseWith(sessionJobPayloadSchema, payload, 'job payload'), tenantId: job.tenantId };
}

/**
 * A short fixed-size name of one incarnation of a session, for idempotency keys: ids may hold any
 * character (and be 256 long), so they are hashed rather than joined with a separator.
 */
export function sessionDigest(state: Pick<SessionState, keyof SessionJobPayload>): string {
  const parts = [state.namespace, state.userId, state.sessionId, state.createdAt];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}
