import type { SessionOperations } from '../sessions/session-operations.js';
import type { WritePath } from './create-write-path.js';

/**
 * Session operations that hand every successful put (prepared or not), append and patch to the write path, which
 * enqueues the background work. The write is durable before that; enqueueing never fails it.
 */
export function withWriteTriggers(sessions: SessionOperations, writePath: WritePath): SessionOperations {
  return {
    ...sessions,
    async put(ref, input, options) {
      const session = await sessions.put(ref, input, options);
      await writePath.afterWrite(session, {
        messagesAdded: session.messages.length > 0,
        contextWindow: options?.contextWindow,
      });
      return session;
    },
    async putPrepared(ref, prepared, options) {
      const result = await sessions.putPrepared(ref, prepared, options);
      await writePath.afterWrite(result.session, {
        messagesAdded: result.messageCount > 0,
        contextWindow: options?.contextWindow,
      });
      return result;
    },
    async append(ref, messages, options) {
      const result = await sessions.append(ref, messages, options);
      await writePath.afterWrite(result.session, {
        messagesAdded: result.messages.length > 0,
        contextWindow: options?.contextWindow,
      });
      return result;
    },
    async patch(ref, patch, options) {
      const state = await sessions.patch(ref, patch, options);
      await writePath.afterWrite(state, { messagesAdded: false });
      return state;
    },
  };
}
