import { agentMethods } from './agent-methods.js';
import type { Health, Whoami } from './client-types.js';
import { EngramClientError } from './engram-client-error.js';
import {
  type CallOptions,
  type ClientOptions,
  createHttpTransport,
  type RequestSpec,
} from './http-transport.js';
import { memoryMethods } from './memory-methods.js';
import { sessionMethods } from './session-methods.js';

/** A typed client of every route of the engram HTTP API (`/mcp` excepted: use an MCP client there). */
export type EngramClient = ReturnType<typeof createEngramClient>;

/**
 * Creates a client of an engram server. Every method resolves the answer's body (typed from the
 * server's own zod schemas) or throws `EngramClientError` with the server's stable `code`; 429
 * answers, and 503s and network errors that cannot have applied the request, are retried (bounded,
 * jittered, honouring `Retry-After`; `retry-policy.ts`). Methods on sessions and
 * agents resolve `{value, etag}`; pass the ETag back as `ifMatch` to write only if nothing changed
 * in between, or use `sessions.update`, which does the read-modify-write loop for you.
 */
export function createEngramClient(options: ClientOptions) {
  const transport = createHttpTransport(options);
  const call = async <V>(spec: RequestSpec) => (await transport.request<V>(spec)).body;
  const sessions = sessionMethods(transport);
  return {
    sessions: {
      ...sessions,
      /**
       * Optimistic read-modify-write of a session's `data`/`context`/`ttl_seconds`: reads the session,
       * asks `change` for a merge patch, writes it with `If-Match`, and starts over (up to `attempts`
       * times, default 5) when another writer got there first (412 `precondition_failed`). The last
       * argument is `{ attempts, signal, timeoutMs }` (or, as before, the number of attempts); the
       * signal and timeout apply to each read and write.
       */
      async update(
        sessionId: string,
        change: (session: Awaited<ReturnType<typeof sessions.get>>) => Parameters<typeof sessions.patch>[1],
        scope: Parameters<typeof sessions.patch>[2] = {},
        options: number | (CallOptions & { attempts?: number }) = {},
      ) {
        const { attempts = 5, ...call } = typeof options === 'number' ? { attempts: options } : options;
        for (let attempt = 1; ; attempt++) {
          const { value, etag } = await sessions.getTagged(sessionId, scope, call);
          try {
            return await sessions.patch(sessionId, change(value), scope, { ...call, ifMatch: etag });
          } catch (error) {
            const conflict = error instanceof EngramClientError && error.code === 'precondition_failed';
            if (!conflict || attempt >= attempts) throw error;
          }
        }
      },
    },
    ...memoryMethods(transport),
    ...agentMethods(transport),
    /** `GET /v1/health`: liveness. */
    health: (options: CallOptions = {}) => call<Health>({ method: 'GET', path: '/v1/health', ...options }),
    /** `GET /v1/whoami`: the caller's tenant, role and permissions (to check a key). */
    whoami: (options: CallOptions = {}) => call<Whoami>({ method: 'GET', path: '/v1/whoami', ...options }),
    /** `GET /ready`: 200 when the store answers (a 503 is retried, then thrown as `unavailable`). */
    ready: (options: CallOptions = {}) =>
      call<{ status: 'ready' }>({ method: 'GET', path: '/ready', ...options }),
    /** `GET /metrics` (admin): Prometheus text. */
    metrics: (options: CallOptions = {}) => call<string>({ method: 'GET', path: '/metrics', ...options }),
    /** `GET /openapi.json`: the OpenAPI 3.1 document. */
    openApi: (options: CallOptions = {}) =>
      call<{ openapi: string; paths: Record<string, unknown> }>({
        method: 'GET',
        path: '/openapi.json',
        ...options,
      }),
    /** Any request, for what the methods do not cover; resolves status, headers, body and ETag. */
    request: transport.request,
  };
}

/** The ETag of a session or agent at `version` (`"3"`), for `ifMatch`. */
export const entityTag = (version: number): string => `"${version}"`;

/** The version an ETag names, or undefined for `*`, weak or malformed tags. */
export function versionOfEntityTag(etag: string | null | undefined): number | undefined {
  const match = /^\s*"(\d{1,15})"\s*$/.exec(etag ?? '');
  return match ? Number(match[1]) : undefined;
}
