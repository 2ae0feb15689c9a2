import type * as T from './client-types.js';
import type { CallOptions, HttpTransport, RequestSpec } from './http-transport.js';

const memory = (id: string) => `/v1/long-term-memory/${encodeURIComponent(id)}`;
const view = (id: string) => `/v1/summary-views/${encodeURIComponent(id)}`;

/** Long-term memory, the memory prompt, background tasks and summary views (the AMS API). */
export function memoryMethods(transport: HttpTransport) {
  const call = async <V>(spec: RequestSpec) => (await transport.request<V>(spec)).body;
  return {
    longTermMemory: {
      /** `POST /v1/long-term-memory`: create memories (indexed before the answer). */
      create: (body: T.CreateMemoriesBody, options: CallOptions = {}) =>
        call<T.Ack>({ method: 'POST', path: '/v1/long-term-memory', body, ...options }),
      /** `POST /v1/long-term-memory/search`: search or list with filters. */
      search: (body: T.SearchBody, query: T.SearchOptions = {}, options: CallOptions = {}) =>
        call<T.SearchResult>({
          method: 'POST',
          path: '/v1/long-term-memory/search',
          query,
          body,
          ...options,
        }),
      /** `GET /v1/long-term-memory/{id}`. */
      get: (memoryId: string, options: CallOptions = {}) =>
        call<T.MemoryRecord>({ method: 'GET', path: memory(memoryId), ...options }),
      /** `PATCH /v1/long-term-memory/{id}`: writes the memory's next version under the same id. */
      edit: (memoryId: string, body: T.EditMemoryBody, options: CallOptions = {}) =>
        call<T.MemoryRecord>({ method: 'PATCH', path: memory(memoryId), body, ...options }),
      /** `GET /v1/long-term-memory/{id}/history`: every version, newest first (the current one first). */
      history: (memoryId: string, query: T.MemoryHistoryQuery = {}, options: CallOptions = {}) =>
        call<T.MemoryHistory>({ method: 'GET', path: `${memory(memoryId)}/history`, query, ...options }),
      /** `DELETE /v1/long-term-memory?memory_ids=…`: each with all its versions. */
      delete: (query: T.DeleteMemoriesQuery, options: CallOptions = {}) =>
        call<T.Ack>({ method: 'DELETE', path: '/v1/long-term-memory', query, ...options }),
      /** `POST /v1/long-term-memory/compact`: merge exact duplicates in a scope. */
      compact: (query: T.CompactQuery = {}, options: CallOptions = {}) =>
        call<T.Ack>({ method: 'POST', path: '/v1/long-term-memory/compact', query, ...options }),
      /** `POST /v1/long-term-memory/forget`: by age, inactivity and budget (dry run by default). */
      forget: (body: T.ForgetBody, query: T.ForgetQuery = {}, options: CallOptions = {}) =>
        call<T.ForgetResult>({
          method: 'POST',
          path: '/v1/long-term-memory/forget',
          query,
          body,
          ...options,
        }),
    },
    /** `POST /v1/memory/prompt`: session summary and history, related memories and the query. */
    memoryPrompt: (body: T.MemoryPromptBody, query: T.SearchOptions = {}, options: CallOptions = {}) =>
      call<T.MemoryPrompt>({ method: 'POST', path: '/v1/memory/prompt', query, body, ...options }),
    tasks: {
      /** `GET /v1/tasks/{id}`: a background task's status. */
      get: (taskId: string, options: CallOptions = {}) =>
        call<T.Task>({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(taskId)}`, ...options }),
    },
    jobs: {
      /** `GET /v1/jobs`: the tenant's background jobs, newest first (`status`, `type`, paging). */
      list: (query: T.JobsQuery = {}, options: CallOptions = {}) =>
        call<T.JobList>({ method: 'GET', path: '/v1/jobs', query, ...options }),
    },
    summaryViews: {
      create: (body: T.CreateSummaryViewBody, options: CallOptions = {}) =>
        call<T.SummaryView>({ method: 'POST', path: '/v1/summary-views', body, ...options }),
      list: (options: CallOptions = {}) =>
        call<T.SummaryView[]>({ method: 'GET', path: '/v1/summary-views', ...options }),
      get: (viewId: string, options: CallOptions = {}) =>
        call<T.SummaryView>({ method: 'GET', path: view(viewId), ...options }),
      delete: (viewId: string, options: CallOptions = {}) =>
        call<T.Ack>({ method: 'DELETE', path: view(viewId), ...options }),
      /** Summarize one partition now (needs an LLM). */
      runPartition: (viewId: string, body: T.RunPartitionBody, options: CallOptions = {}) =>
        call<T.PartitionResult>({ method: 'POST', path: `${view(viewId)}/partitions/run`, body, ...options }),
      partitions: (viewId: string, query: T.PartitionsQuery = {}, options: CallOptions = {}) =>
        call<T.PartitionResult[]>({ method: 'GET', path: `${view(viewId)}/partitions`, query, ...options }),
      /** Recompute every partition in the background: a task. */
      run: (viewId: string, body: T.RunViewBody = {}, options: CallOptions = {}) =>
        call<T.Task>({ method: 'POST', path: `${view(viewId)}/run`, body, ...options }),
    },
  };
}
