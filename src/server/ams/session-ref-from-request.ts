import type { FastifyRequest } from 'fastify';
import type { SessionRef } from '../../engine/sessions/session-ref.js';
import { tenantOf } from '../auth/principal.js';
import { readPath, readQuery } from '../request-parts.js';
import { sessionPathSchema, sessionScopeQuerySchema } from './working-memory-schemas.js';

/**
 * The session named by the `session_id` path and the `namespace`/`user_id` query (absent = none),
 * in the caller's tenant.
 */
export function sessionRefFromRequest(request: FastifyRequest): SessionRef & { tenantId: string } {
  const { session_id } = readPath(request, sessionPathSchema);
  const { namespace, user_id } = readQuery(request, sessionScopeQuerySchema);
  return {
    sessionId: session_id,
    namespace: namespace ?? null,
    userId: user_id ?? null,
    tenantId: tenantOf(request),
  };
}
