import { EngramError } from '../../core/errors.js';

/** Stable codes of LLM failures. */
export type LlmErrorCode =
  /** 429: the server asked to slow down (`retryAfterMs` when it said how long). */
  | 'llm_rate_limited'
  /** 5xx, a connection failure or an error event in a stream. */
  | 'llm_unavailable'
  /** No answer (or no next chunk) within the timeout. */
  | 'llm_timeout'
  /** 4xx other than 408/409/429: bad key, unknown model, request too large. Retrying will not help. */
  | 'llm_request_rejected'
  /** The server's answer does not follow the chat completions protocol. */
  | 'llm_response_invalid'
  /** The model's text is not the JSON that was asked for (malformed, or fails the schema). */
  | 'llm_output_invalid'
  /** No LLM is configured, so LLM-based features are off. */
  | 'llm_not_configured';

const notRetryable = new Set<LlmErrorCode>(['llm_request_rejected', 'llm_not_configured']);

/**
 * Every LLM failure. `retryable` says whether the same request may succeed later; `retryAfterMs`
 * is the server's own wait (Retry-After), which a retry must not undercut.
 */
export class LlmError extends EngramError {
  declare readonly code: LlmErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    code: LlmErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown; retryAfterMs?: number } = {},
  ) {
    super(code, 'unavailable', message, {
      details: {
        ...options.details,
        ...(options.retryAfterMs === undefined ? {} : { retryAfterMs: options.retryAfterMs }),
      },
      cause: options.cause,
    });
    this.name = 'LlmError';
    this.retryable = !notRetryable.has(code);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** What a feature that needs a model answers when none is configured. */
export function llmNotConfiguredError(feature: string): LlmError {
  return new LlmError(
    'llm_not_configured',
    `${feature} needs an LLM, and none is configured; configure one (base URL, model, key) to turn it on`,
    { details: { feature } },
  );
}

/**
 * How long the server asked to wait, in ms: `retry-after-ms` (OpenAI) or `retry-after` (seconds or
 * an HTTP date). Undefined when it said nothing usable.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const milliseconds = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1_000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The error for a non-2xx answer; `url` as messages may show it (redacted). */
export function httpError(url: string, status: number, body: string, headers: Headers): LlmError {
  const details = { status, body: body.slice(0, 500) };
  const message = `Chat completion request to ${url} failed with HTTP ${status}`;
  if (status === 429) {
    const wait = retryAfterMs(headers);
    return new LlmError('llm_rate_limited', message, {
      details,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    });
  }
  if (status >= 500 || status === 408 || status === 409)
    return new LlmError('llm_unavailable', message, { details });
  return new LlmError('llm_request_rejected', message, { details });
}
