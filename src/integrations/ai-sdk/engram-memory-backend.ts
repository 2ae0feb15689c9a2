import type { EngramClient } from '../../client/engram-client.js';
import type { Engram } from '../../engram.js';

/** Which session a call belongs to (engram's session key). */
export interface SessionScope {
  sessionId: string;
  userId?: string | null;
  namespace?: string | null;
  /** Library only: the tenant (the HTTP client's tenant is its credential's). Default `default`. */
  tenantId?: string;
}

/** A context message as the middleware needs it. */
export interface BackendMessage {
  role: string;
  content: string;
}

/** What the middleware asks of engram: the assembled context, and storing a finished turn. */
export interface EngramMemoryBackend {
  assemble(scope: SessionScope, message: string, agentId: string | undefined): Promise<BackendMessage[]>;
  appendTurn(scope: SessionScope, user: string, assistant: string): Promise<void>;
}

/** The backend over an Engram instance in this process. */
export function libraryBackend(engram: Engram): EngramMemoryBackend {
  const ref = (scope: SessionScope) => ({
    sessionId: scope.sessionId,
    userId: scope.userId ?? null,
    namespace: scope.namespace ?? null,
    tenantId: scope.tenantId ?? 'default',
  });
  return {
    async assemble(scope, message, agentId) {
      const session = ref(scope);
      const agent = await engram.agents.resolve(session.tenantId, agentId);
      const { context } = await engram.assemble({
        session,
        message,
        agent: { id: agent.id, systemPrompt: agent.systemPrompt, memory: agent.memory },
        format: 'neutral',
      });
      return context;
    },
    async appendTurn(scope, user, assistant) {
      await engram.sessions.append(ref(scope), [
        { role: 'user', content: user },
        { role: 'assistant', content: assistant },
      ]);
    },
  };
}

/** The backend over an engram server, through the typed HTTP client. */
export function clientBackend(client: EngramClient): EngramMemoryBackend {
  const query = (scope: SessionScope) => ({
    ...(scope.userId ? { user_id: scope.userId } : {}),
    ...(scope.namespace ? { namespace: scope.namespace } : {}),
  });
  return {
    async assemble(scope, message, agentId) {
      const { messages } = await client.context({
        session_id: scope.sessionId,
        ...(scope.userId ? { user_id: scope.userId } : {}),
        ...(scope.namespace ? { namespace: scope.namespace } : {}),
        ...(agentId ? { agent_id: agentId } : {}),
        message,
        format: 'neutral',
      });
      return messages as BackendMessage[];
    },
    async appendTurn(scope, user, assistant) {
      await client.sessions.append(
        scope.sessionId,
        {
          messages: [
            { role: 'user', content: user },
            { role: 'assistant', content: assistant },
          ],
        },
        query(scope),
      );
    },
  };
}
