import type { SessionRef } from '../../engine/sessions/session-ref.js';
import type { Engram } from '../../engram.js';

/**
 * AMS key fallback (§4.3): when the exact (namespace, user, session) key is absent, the one live
 * session with this id, narrowed by whichever of namespace and user the caller gave. Several
 * matches are ambiguous: null, as if none existed.
 */
export async function findUniqueSession(
  engram: Engram,
  ref: { sessionId: string; tenantId: string; namespace?: string | null; userId?: string | null },
): Promise<SessionRef | null> {
  const { sessions, total } = await engram.sessions.list({
    tenantId: ref.tenantId,
    sessionId: ref.sessionId,
    limit: 2,
    ...(ref.namespace != null ? { namespace: ref.namespace } : {}),
    ...(ref.userId != null ? { userId: ref.userId } : {}),
  });
  const [only] = sessions;
  if (total !== 1 || !only) return null;
  return {
    tenantId: ref.tenantId,
    sessionId: only.sessionId,
    namespace: only.namespace,
    userId: only.userId,
  };
}
