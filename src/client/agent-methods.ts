import { chatEvents } from './chat-events.js';
import type * as T from './client-types.js';
import { EngramClientError } from './engram-client-error.js';
import type { CallOptions, ConditionalOptions, HttpTransport, RequestSpec } from './http-transport.js';
import type { Tagged } from './session-methods.js';

const agent = (id: string) => `/v1/agents/${encodeURIComponent(id)}`;
const procedure = (agentId: string, id: string) => `${agent(agentId)}/procedures/${encodeURIComponent(id)}`;

/**
 * The 503 codes of the chat route that mean the model failed before its stream started: the turn is
 * appended only after the stream, so nothing was stored and the chat may be sent again.
 */
const chatUnappliedCodes = ['llm_unavailable', 'llm_timeout', 'llm_rate_limited', 'llm_response_invalid'];

/** Agents, their knowledge and procedures, context assembly and chat (engram's extensions). */
export function agentMethods(transport: HttpTransport) {
  const call = async <V>(spec: RequestSpec) => (await transport.request<V>(spec)).body;
  const tagged = async <V>(spec: RequestSpec): Promise<Tagged<V>> => {
    const { body, etag } = await transport.request<V>(spec);
    return { value: body, etag: etag ?? '' };
  };
  return {
    agents: {
      list: (query: T.ListAgentsQuery = {}, options: CallOptions = {}) =>
        call<T.AgentList>({ method: 'GET', path: '/v1/agents', query, ...options }),
      /** `POST /v1/agents` (admin); the ETag is the agent's version. */
      create: (body: T.CreateAgentBody, options: CallOptions = {}) =>
        tagged<T.Agent>({ method: 'POST', path: '/v1/agents', body, ...options }),
      get: (agentId: string, options: CallOptions = {}) =>
        tagged<T.Agent>({ method: 'GET', path: agent(agentId), ...options }),
      /** `PATCH /v1/agents/{id}` (admin): with `ifMatch`, only if still at that version. */
      update: (agentId: string, body: T.UpdateAgentBody, options: ConditionalOptions = {}) =>
        tagged<T.Agent>({ method: 'PATCH', path: agent(agentId), body, ...options }),
      delete: async (agentId: string, options: CallOptions = {}) => {
        await transport.request<undefined>({ method: 'DELETE', path: agent(agentId), ...options });
      },
    },
    knowledge: {
      /**
       * `POST /v1/agents/{id}/knowledge` (admin): chunked; the same name again replaces the document.
       * A document over 100,000 characters is ingested in the background: the answer (202) then has
       * a `task_id` to follow with `tasks.get`, instead of the stored document.
       */
      upload: (agentId: string, body: T.UploadDocumentBody, options: CallOptions = {}) =>
        call<T.KnowledgeUpload>({ method: 'POST', path: `${agent(agentId)}/knowledge`, body, ...options }),
      list: (agentId: string, options: CallOptions = {}) =>
        call<{ documents: T.KnowledgeDocument[] }>({
          method: 'GET',
          path: `${agent(agentId)}/knowledge`,
          ...options,
        }),
      /** `GET /v1/agents/{id}/knowledge/{document_id}/chunks`: its chunks in document order. */
      chunks: (
        agentId: string,
        documentId: string,
        query: T.KnowledgeChunksQuery = {},
        options: CallOptions = {},
      ) =>
        call<T.KnowledgeChunkList>({
          method: 'GET',
          path: `${agent(agentId)}/knowledge/${encodeURIComponent(documentId)}/chunks`,
          query,
          ...options,
        }),
      delete: (agentId: string, documentId: string, options: CallOptions = {}) =>
        call<{ deleted_chunks: number }>({
          method: 'DELETE',
          path: `${agent(agentId)}/knowledge/${encodeURIComponent(documentId)}`,
          ...options,
        }),
    },
    procedures: {
      /** Propose a procedure: stored `pending` until an admin approves it. */
      propose: (agentId: string, body: T.CreateProcedureBody, options: CallOptions = {}) =>
        call<T.Procedure>({ method: 'POST', path: `${agent(agentId)}/procedures`, body, ...options }),
      list: (agentId: string, query: T.ListProceduresQuery = {}, options: CallOptions = {}) =>
        call<{ procedures: T.Procedure[] }>({
          method: 'GET',
          path: `${agent(agentId)}/procedures`,
          query,
          ...options,
        }),
      get: (agentId: string, procedureId: string, options: CallOptions = {}) =>
        call<T.Procedure>({ method: 'GET', path: procedure(agentId, procedureId), ...options }),
      update: (
        agentId: string,
        procedureId: string,
        body: T.UpdateProcedureBody,
        options: CallOptions = {},
      ) => call<T.Procedure>({ method: 'PATCH', path: procedure(agentId, procedureId), body, ...options }),
      delete: async (agentId: string, procedureId: string, options: CallOptions = {}) => {
        await transport.request<undefined>({
          method: 'DELETE',
          path: procedure(agentId, procedureId),
          ...options,
        });
      },
      approve: (agentId: string, procedureId: string, options: CallOptions = {}) =>
        call<T.Procedure>({ method: 'POST', path: `${procedure(agentId, procedureId)}/approve`, ...options }),
      reject: (agentId: string, procedureId: string, options: CallOptions = {}) =>
        call<T.Procedure>({ method: 'POST', path: `${procedure(agentId, procedureId)}/reject`, ...options }),
    },
    /** `POST /v1/context`: one turn's context under the agent's budget, and its trace. */
    context: (body: T.ContextBody, options: CallOptions = {}) =>
      call<T.ContextResult>({ method: 'POST', path: '/v1/context', body, ...options }),
    /** `POST /v1/context/preview`: the context the next turn would get, writing nothing (`read`). */
    previewContext: (body: T.ContextBody, options: CallOptions = {}) =>
      call<T.ContextResult>({ method: 'POST', path: '/v1/context/preview', body, ...options }),
    /**
     * `POST /v1/sessions/{id}/chat`: one turn with the agent's model; its events as they stream
     * (`delta`s, then `done` once the turn is stored, or `error`). The route stores the turn only
     * after the stream, so a 503 because the model failed before answering (`chatUnappliedCodes`)
     * is retried; `llm_not_configured` is not. Leaving the `for await` early closes the stream.
     */
    chat: async (
      sessionId: string,
      body: T.ChatBody,
      options: CallOptions = {},
    ): Promise<AsyncGenerator<T.ChatEvent>> => {
      const response = await transport.open(
        {
          method: 'POST',
          path: `/v1/sessions/${encodeURIComponent(sessionId)}/chat`,
          body,
          unappliedCodes: chatUnappliedCodes,
          ...options,
        },
        'text/event-stream',
      );
      if (!response.body) {
        throw new EngramClientError(0, 'event_stream_invalid', 'The chat answer has no body', undefined);
      }
      return chatEvents(response.body);
    },
  };
}
