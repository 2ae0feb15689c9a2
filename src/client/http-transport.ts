import { EngramClientError, errorFromResponse } from './engram-client-error.js';
import { type RetryOptions, resolveRetryOptions, retryAfterMs, retryDelayMs } from './retry-delay.js';
import { retriesAnswer, retriesNetworkFailure } from './retry-policy.js';

/** How to reach the server. */
export interface ClientOptions {
  /** The server's address, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** An API key or a JWT, sent as `Authorization: Bearer …` (not needed while auth is off). */
  apiKey?: string;
  /** Sent with every request (e.g. `x-request-id`). */
  headers?: Record<string, string>;
  /**
   * Retrying of 429 and 503 answers and network errors (`false`: never retry). A 503 or a network
   * error is retried for POST and PATCH only when the request cannot have been applied (docs/client.md).
   */
  retry?: RetryOptions | false;
  /**
   * The longest a call may take, in ms, retries and their waits included (for `chat`: until its
   * stream starts); then it is aborted and fails with `EngramClientError` `timeout`. Each call's
   * `timeoutMs` overrides it. Default: none.
   */
  timeoutMs?: number;
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
  /** Overrides the client's `timeoutMs` (`Infinity`: none). */
  timeoutMs?: number | undefined;
  /**
   * 503 codes this route answers only before it has stored anything: retried even when the method
   * is POST or PATCH.
   */
  unappliedCodes?: readonly string[] | undefined;
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
  /** Cancels the call, retry waits included (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call, in ms (`Infinity`: none). */
  timeoutMs?: number;
}

/** Per-call options of writes that honour `If-Match` (sessions, agents). */
export interface ConditionalOptions extends CallOptions {
  /** The ETag the target must still have (from an earlier answer); else the call fails with 412. */
  ifMatch?: string;
}

/** Waits `ms`, or rejects with the signal's reason once it aborts; leaves no listener behind. */
const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
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

/** `work`, or a rejection with the signal's reason as soon as it aborts, whether `work` heeds it or not. */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** setTimeout's longest delay (a longer one fires at once). */
const LONGEST_TIMER_MS = 2_147_483_647;

/** A valid timeout in ms, or undefined for none (absent or `Infinity`); else a RangeError naming it. */
function checkedTimeout(value: unknown): number | undefined {
  if (value === undefined || value === Number.POSITIVE_INFINITY) return undefined;
  if (typeof value !== 'number' || !(value > 0 && value <= LONGEST_TIMER_MS)) {
    throw new RangeError(
      `timeoutMs must be a number of ms > 0 and ≤ ${LONGEST_TIMER_MS} (or Infinity: none), got ${String(value)}`,
    );
  }
  return value;
}

/** The message of a failed fetch, with the system error code its cause carries (`ECONNREFUSED`). */
function describeNetworkError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? `${message} (${cause.code})` : message;
}

/** Sends requests: authentication, JSON, retries (`retry-policy.ts`), timeouts, typed errors. */
export interface HttpTransport {
  /** Sends a request and parses a successful answer; a non-2xx answer throws `EngramClientError`. */
  request<T>(spec: RequestSpec): Promise<ClientResponse<T>>;
  /**
   * Sends a request and resolves the successful `Response` unread (for streams); the timeout stops
   * once it has arrived.
   */
  open(spec: RequestSpec, accept: string): Promise<Response>;
}

type Exchange<R> =
  | { value: R }
  | { failure: EngramClientError; retryable: boolean; retryAfter?: number | undefined };

export function createHttpTransport(options: ClientOptions): HttpTransport {
  const base = options.baseUrl.replace(/\/+$/, '');
  const retry = resolveRetryOptions(options.retry);
  const clientTimeoutMs = checkedTimeout(options.timeoutMs);
  const fetchImplementation = options.fetch ?? globalThis.fetch;

  /** Sends `spec` until it succeeds (resolving `read` of the answer), may not be retried, or is out of retries. */
  async function send<R>(
    spec: RequestSpec,
    accept: string,
    read: (response: Response) => Promise<R>,
  ): Promise<R> {
    const headers: Record<string, string> = { accept, ...options.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    if (spec.ifMatch !== undefined) headers['if-match'] = spec.ifMatch;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
      headers['content-type'] = spec.contentType ?? 'application/json';
    }
    const url = `${base}${spec.path}${queryString(spec.query)}`;
    const timeoutMs = spec.timeoutMs === undefined ? clientTimeoutMs : checkedTimeout(spec.timeoutMs);
    let signal = spec.signal;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (timeoutMs !== undefined) {
      const deadline = new AbortController();
      timer = setTimeout(() => {
        deadline.abort(
          new EngramClientError(
            0,
            'timeout',
            `${spec.method} ${url} did not complete within ${timeoutMs} ms (timeoutMs)`,
            undefined,
            { details: { timeoutMs } },
          ),
        );
      }, timeoutMs);
      signal = spec.signal ? AbortSignal.any([spec.signal, deadline.signal]) : deadline.signal;
    }

    async function exchange(): Promise<Exchange<R>> {
      try {
        const response = await abortable(
          fetchImplementation(url, {
            method: spec.method,
            headers,
            ...(body === undefined ? {} : { body }),
            ...(signal ? { signal } : {}),
          }),
          signal,
        );
        if (response.ok) return { value: await abortable(read(response), signal) };
        const failure = errorFromResponse(response.status, await abortable(readBody(response), signal));
        const unapplied = failure.status === 503 && (spec.unappliedCodes ?? []).includes(failure.code);
        return {
          failure,
          retryable: unapplied || retriesAnswer(spec.method, failure),
          retryAfter: retryAfterMs(response.headers.get('retry-after')),
        };
      } catch (error) {
        // The caller's abort (its own reason) or the timeout (EngramClientError `timeout`).
        if (signal?.aborted) throw signal.reason;
        const failure = new EngramClientError(
          0,
          'network_error',
          `${spec.method} ${url} failed: ${describeNetworkError(error)}`,
          undefined,
          { cause: error },
        );
        return { failure, retryable: retriesNetworkFailure(spec.method, failure) };
      }
    }

    try {
      for (let attempt = 0; ; attempt++) {
        const outcome = await exchange();
        if ('value' in outcome) return outcome.value;
        if (!outcome.retryable || attempt >= retry.maxRetries) throw outcome.failure;
        await sleep(retryDelayMs(attempt, outcome.retryAfter, retry), signal);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    request: <T>(spec: RequestSpec) =>
      send<ClientResponse<T>>(spec, 'application/json', async (response) => ({
        status: response.status,
        headers: response.headers,
        body: (await readBody(response)) as T,
        etag: response.headers.get('etag'),
      })),
    open: (spec, accept) => send(spec, accept, async (response) => response),
  };
}
