import type { FastifyRequest } from 'fastify';
import type { SessionRef } from '../../engine/session-ref.js';
import { readPath, readQuery } from '../request-parts.js';
import { sessionPathSchema, sessionScopeQuerySchema } from './working-memory-schemas.js';

/** The session named by the `session_id` path and the `namespace`/`user_id` query (absent = none). */
export function sessionRefFromRequest(request: FastifyRequest): SessionRef {
  const { session_id } = readPath(request, sessionPathSchema);
  const { namespace, user_id } = readQuery(request, sessionScopeQuerySchema);
  return { sessionId: session_id, namespace: namespace ?? null, userId: user_id ?? null };
}
