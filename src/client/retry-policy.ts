import type { EngramClientError } from './engram-client-error.js';

/**
 * Methods whose retry cannot apply a change twice (RFC 9110 §9.2.2): a second GET reads again, a
 * second PUT writes the same state, a second DELETE deletes what is already gone. POST and PATCH
 * are not: a second append appends again, a second memory edit writes another version.
 */
const idempotentMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export const isIdempotentMethod = (method: string): boolean => idempotentMethods.has(method.toUpperCase());

/**
 * 503 codes that no retry can fix, whatever the method: no LLM is configured, or the model's server
 * refused the request itself (bad key, unknown model). The server's `LlmError` marks them not
 * retryable too.
 */
const permanentCodes = new Set(['llm_not_configured', 'llm_request_rejected']);

/**
 * 503 codes the server answers before the request did any work, so that a retry cannot apply it
 * twice: authentication could not run (`auth_unavailable`: the identity provider's keys cannot be
 * fetched) and the instance is closing (`shutting_down`: turns are refused, or cancelled before
 * anything is stored). `llm_unavailable` is one only while the model's circuit is open (its
 * `details.circuit`): the call was refused without reaching the model. Everything else may have
 * written part or all of the request before failing: `store_unavailable` is the same code for a
 * pool that had no connection and for a store that died mid-write; a model or embedding failure
 * may come after a write; a 503 without an engram code (an AMS route's `{"detail"}`, a proxy) says
 * nothing.
 */
function refusedBeforeWork(error: EngramClientError): boolean {
  if (error.code === 'auth_unavailable' || error.code === 'shutting_down') return true;
  return error.code === 'llm_unavailable' && typeof error.details?.circuit === 'string';
}

/**
 * Whether a call that failed with `error` (a non-2xx answer) may be sent again: a 429 always (the
 * server refused it before any work); a 503 unless its code is permanent, for an idempotent method
 * always, for POST and PATCH only when the code says nothing was done (`refusedBeforeWork`).
 */
export function retriesAnswer(method: string, error: EngramClientError): boolean {
  if (error.status === 429) return true;
  if (error.status !== 503 || permanentCodes.has(error.code)) return false;
  return isIdempotentMethod(method) || refusedBeforeWork(error);
}

/** A failure to connect at all: nothing reached the server, so any method may be sent again. */
function neverConnected(cause: unknown): boolean {
  for (let error = cause, depth = 0; error && depth < 4; depth++) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return true;
    error = (error as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Whether a call whose request or answer was lost on the way (`network_error`) may be sent again:
 * for an idempotent method always; for POST and PATCH only when the connection was refused (the
 * request never left), since a reset connection may have delivered it.
 */
export function retriesNetworkFailure(method: string, error: EngramClientError): boolean {
  return isIdempotentMethod(method) || neverConnected(error.cause);
}
