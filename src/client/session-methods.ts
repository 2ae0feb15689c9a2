import type * as T from './client-types.js';
import type { CallOptions, ConditionalOptions, HttpTransport } from './http-transport.js';

const session = (id: string) => `/v1/working-memory/${encodeURIComponent(id)}`;

/** A value and the ETag it was read or written at (pass it as `ifMatch` to the next write). */
export interface Tagged<V> {
  value: V;
  etag: string;
}

/** Working memory (AMS) and engram's session extensions: append, patch, end, working set, traces. */
export function sessionMethods(transport: HttpTransport) {
  const tagged = async <V>(response: Promise<{ body: V; etag: string | null }>): Promise<Tagged<V>> => {
    const { body, etag } = await response;
    return { value: body, etag: etag ?? '' };
  };
  return {
    /** `GET /v1/working-memory`: session ids, most recently updated first. */
    list: async (query: T.ListSessionsQuery = {}, options: CallOptions = {}) =>
      (
        await transport.request<T.SessionList>({
          method: 'GET',
          path: '/v1/working-memory',
          query,
          ...options,
        })
      ).body,
    /** `GET /v1/sessions`: sessions with their namespace, user, last update and size, newest first. */
    listSummaries: async (query: T.SessionSummaryListQuery = {}, options: CallOptions = {}) =>
      (
        await transport.request<T.SessionSummaryList>({
          method: 'GET',
          path: '/v1/sessions',
          query,
          ...options,
        })
      ).body,
    /** `GET /v1/working-memory/{id}`: the session (a 404 `not_found` when absent). */
    get: async (sessionId: string, query: T.GetWorkingMemoryQuery = {}, options: CallOptions = {}) =>
      (
        await transport.request<T.WorkingMemory>({
          method: 'GET',
          path: session(sessionId),
          query,
          ...options,
        })
      ).body,
    /** The session and its ETag, for a conditional write after. */
    getTagged: (sessionId: string, query: T.GetWorkingMemoryQuery = {}, options: CallOptions = {}) =>
      tagged(
        transport.request<T.WorkingMemory>({ method: 'GET', path: session(sessionId), query, ...options }),
      ),
    /** `PUT /v1/working-memory/{id}`: create or replace the session (AMS semantics). */
    put: (
      sessionId: string,
      body: T.WorkingMemoryBody,
      query: T.ModelQuery = {},
      options: ConditionalOptions = {},
    ) =>
      tagged(
        transport.request<T.WorkingMemory>({
          method: 'PUT',
          path: session(sessionId),
          query,
          body,
          ...options,
        }),
      ),
    /** `DELETE /v1/working-memory/{id}`. */
    delete: async (sessionId: string, query: T.SessionScope = {}, options: CallOptions = {}) =>
      (await transport.request<T.StatusOk>({ method: 'DELETE', path: session(sessionId), query, ...options }))
        .body,
    /** `POST /v1/working-memory/{id}/messages`: atomic append (creates the session when absent). */
    append: (
      sessionId: string,
      body: T.AppendMessagesBody,
      query: T.SessionScope = {},
      options: ConditionalOptions = {},
    ) =>
      tagged(
        transport.request<T.AppendMessagesResult>({
          method: 'POST',
          path: `${session(sessionId)}/messages`,
          query,
          body,
          ...options,
        }),
      ),
    /** `PATCH /v1/working-memory/{id}`: JSON merge patch of `data`, `context`, `ttl_seconds`. */
    patch: (
      sessionId: string,
      body: T.SessionPatchBody,
      query: T.SessionScope = {},
      options: ConditionalOptions = {},
    ) =>
      tagged(
        transport.request<T.SessionState>({
          method: 'PATCH',
          path: session(sessionId),
          query,
          body,
          contentType: 'application/merge-patch+json',
          ...options,
        }),
      ),
    /** `POST /v1/working-memory/{id}/end`: write the episode (and capture a procedure) in the background. */
    end: async (
      sessionId: string,
      body: T.SessionEndBody = {},
      query: T.SessionScope = {},
      options: CallOptions = {},
    ) =>
      (
        await transport.request<T.SessionEndResult>({
          method: 'POST',
          path: `${session(sessionId)}/end`,
          query,
          body,
          ...options,
        })
      ).body,
    /** `GET /v1/working-memory/{id}/working-set`: the ranked memories for a query, with score components. */
    workingSet: async (sessionId: string, query: T.WorkingSetQuery, options: CallOptions = {}) =>
      (
        await transport.request<T.WorkingSet>({
          method: 'GET',
          path: `${session(sessionId)}/working-set`,
          query,
          ...options,
        })
      ).body,
    /** `POST /v1/working-memory/{id}/working-set`: pin, unpin, remove, restore. */
    updateWorkingSet: async (
      sessionId: string,
      changes: T.WorkingSetChanges,
      query: T.SessionScope = {},
      options: CallOptions = {},
    ) =>
      (
        await transport.request<T.WorkingSetCuration>({
          method: 'POST',
          path: `${session(sessionId)}/working-set`,
          query,
          body: changes,
          ...options,
        })
      ).body,
    /** `GET /v1/inspector/sessions/{id}/traces`: recorded context traces, newest first (needs `inspect`). */
    traces: async (sessionId: string, query: T.TracesQuery = {}, options: CallOptions = {}) =>
      (
        await transport.request<{ traces: T.TraceRecord[]; total: number }>({
          method: 'GET',
          path: `/v1/inspector/sessions/${encodeURIComponent(sessionId)}/traces`,
          query,
          ...options,
        })
      ).body,
  };
}
