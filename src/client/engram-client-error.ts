/**
 * A request the server refused or could not answer. `code` is the server's stable error code
 * (engram's `{"error": {code}}` bodies, e.g. `not_found`, `precondition_failed`, `forbidden`); AMS
 * routes answer `{"detail"}` without a code, so theirs is derived from the status
 * (`validation_failed`, `not_found`, …, else `http_<status>`). Failures the client detects itself
 * have status 0: `network_error` (the server could not be reached or the connection broke; `cause`
 * is fetch's error), `timeout` (no answer within `timeoutMs`) and `event_stream_invalid` (a chat
 * stream that is not the event stream it should be).
 */
export class EngramClientError extends Error {
  readonly status: number;
  readonly code: string;
  readonly category: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** The parsed error body (or its text when it was not JSON). */
  readonly body: unknown;

  constructor(status: number, code: string, message: string, body: unknown, extra: ErrorExtra = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'EngramClientError';
    this.status = status;
    this.code = code;
    this.category = extra.category;
    this.details = extra.details;
    this.body = body;
  }
}

interface ErrorExtra {
  category?: string | undefined;
  details?: Record<string, unknown> | undefined;
  cause?: unknown;
}

/** Codes for statuses whose body carries none (AMS routes, framework errors). */
const codeByStatus: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal',
  503: 'unavailable',
};

/** The error a non-2xx answer stands for, from its status and body. */
export function errorFromResponse(status: number, body: unknown): EngramClientError {
  const fallback = codeByStatus[status] ?? `http_${status}`;
  if (typeof body === 'object' && body !== null) {
    const { error, detail } = body as { error?: unknown; detail?: unknown };
    if (typeof error === 'object' && error !== null) {
      const { code, category, message, details } = error as Record<string, unknown>;
      return new EngramClientError(
        status,
        typeof code === 'string' ? code : fallback,
        typeof message === 'string' ? message : `HTTP ${status}`,
        body,
        {
          category: typeof category === 'string' ? category : undefined,
          details:
            typeof details === 'object' && details !== null
              ? (details as Record<string, unknown>)
              : undefined,
        },
      );
    }
    if (typeof detail === 'string') return new EngramClientError(status, fallback, detail, body);
    if (Array.isArray(detail)) {
      const first = detail[0] as { msg?: unknown; loc?: unknown } | undefined;
      const where = Array.isArray(first?.loc) ? ` at ${first.loc.join('.')}` : '';
      const message = typeof first?.msg === 'string' ? `${first.msg}${where}` : `HTTP ${status}`;
      return new EngramClientError(status, fallback, message, body, { details: { issues: detail } });
    }
  }
  return new EngramClientError(status, fallback, `HTTP ${status}`, body);
}
