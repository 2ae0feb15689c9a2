import type { SessionState } from '../../core/schemas/session.js';

/** engram's view of a session without its messages: the version is also the ETag. */
export function toSessionStateBody(state: SessionState) {
  return {
    session_id: state.sessionId,
    namespace: state.namespace,
    user_id: state.userId,
    version: state.version,
    data: state.data,
    context: state.context,
    ttl_seconds: state.ttlSeconds,
    message_count: state.messageCount,
    tokens: state.tokenCount,
    created_at: state.createdAt,
    updated_at: state.updatedAt,
    expires_at: state.expiresAt,
  };
}
