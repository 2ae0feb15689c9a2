import { errorFromResponse } from './engram-client-error.js';
import { defaultRetryOptions, type RetryOptions, retryAfterMs, retryDelayMs } from './retry-delay.js';

/** How to reach the server. */
export interface ClientOptions {
  /** The server's address, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** An API key or a JWT, sent as `Authorization: Bearer …` (not needed while auth is off). */
  apiKey?: string;
  /** Sent with every request (e.g. `x-request-id`). */
  headers?: Record<string, string>;
  /** Retrying of 429 and 503 answers (`false`: never retry). */
  retry?: RetryOptions | false;
  /** A fetch implementation; default the global one. */
  fetch?: typeof fetch;
}

/** One request: a path under `baseUrl` with `{name}`-free segments already encoded. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: object | undefined;
  /** JSON-serialized unless a string (sent as is, with `contentType`). */
  body?: unknown;
  contentType?: string;
  /** An ETag the target must still have (`If-Match`), else 412 `precondition_failed`. */
  ifMatch?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** A successful answer: status, headers, parsed body (JSON, else text; undefined for 204) and ETag. */
export interface ClientResponse<T> {
  status: number;
  headers: Headers;
  body: T;
  etag: string | null;
}

/** Per-call options of every client method. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Per-call options of writes that honour `If-Match` (sessions, agents). */
export interface ConditionalOptions extends CallOptions {
  /** The ETag the target must still have (from an earlier answer); else the call fails with 412. */
  ifMatch?: string;
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

function queryString(query: object | undefined): string {
  if (!query) return '';
  const parameters = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) parameters.append(key, String(item));
  }
  const text = parameters.toString();
  return text ? `?${text}` : '';
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (!/json/i.test(response.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Sends requests: authentication, JSON, retries of 429/503 (honouring `Retry-After`), typed errors. */
export interface HttpTransport {
  /** Sends a request and parses a successful answer; a non-2xx answer throws `EngramClientError`. */
  request<T>(spec: RequestSpec): Promise<ClientResponse<T>>;
  /** Sends a request and resolves the successful `Response` unread (for streams). */
  open(spec: RequestSpec, accept: string): Promise<Response>;
}

export function createHttpTransport(options: ClientOptions): HttpTransport {
  const base = options.baseUrl.replace(/\/+$/, '');
  const retry =
    options.retry === false
      ? { ...defaultRetryOptions, maxRetries: 0 }
      : { ...defaultRetryOptions, ...options.retry };
  const fetchImplementation = options.fetch ?? globalThis.fetch;

  async function send(spec: RequestSpec, accept: string): Promise<Response> {
    const headers: Record<string, string> = { accept, ...options.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    if (spec.ifMatch !== undefined) headers['if-match'] = spec.ifMatch;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
      headers['content-type'] = spec.contentType ?? 'application/json';
    }
    const url = `${base}${spec.path}${queryString(spec.query)}`;
    for (let attempt = 0; ; attempt++) {
      const response = await fetchImplementation(url, {
        method: spec.method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(spec.signal ? { signal: spec.signal } : {}),
      });
      if (response.ok) return response;
      const retryable = response.status === 429 || response.status === 503;
      if (!retryable || attempt >= retry.maxRetries)
        throw errorFromResponse(response.status, await readBody(response));
      // Free the connection before waiting.
      await response.body?.cancel();
      await sleep(
        retryDelayMs(attempt, retryAfterMs(response.headers.get('retry-after')), retry),
        spec.signal,
      );
    }
  }

  return {
    async request<T>(spec: RequestSpec): Promise<ClientResponse<T>> {
      const response = await send(spec, 'application/json');
      return {
        status: response.status,
        headers: response.headers,
        body: (await readBody(response)) as T,
        etag: response.headers.get('etag'),
      };
    },
    open: send,
  };
}
