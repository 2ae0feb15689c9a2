import { EngramError } from '../../core/errors.js';
import { causeWithoutUrlSecrets, redactedUrl } from '../../core/redacted-url.js';

/** How {@link fetchTextWithRetry} times out and retries. */
export interface RetryPolicy {
  /** Limit for one attempt, body included. */
  timeoutMs: number;
  /** Attempts after the first one, for 429, 5xx, network errors and timeouts. */
  maxRetries: number;
  /** First backoff; doubles each retry, with jitter. */
  baseDelayMs: number;
}

/** A server asking to wait longer than this is treated as unavailable now rather than waited for. */
export const MAX_RETRY_DELAY_MS = 60_000;

type Failure =
  | { kind: 'http'; status: number; body: string; retryAfter: string | null }
  | { kind: 'timeout' | 'network'; cause: unknown };

/**
 * Fetches `url` and returns the body of the first 2xx response. Retries 429, 5xx, network errors and
 * timeouts with exponential backoff, honouring `Retry-After`; fails at once on other statuses. Every
 * failure is an EngramError of category `unavailable`; an abort of `signal` rejects with its reason.
 */
export async function fetchTextWithRetry(
  fetchImplementation: typeof fetch,
  url: string,
  init: Omit<RequestInit, 'signal'>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(policy.timeoutMs);
    let failure: Failure;
    try {
      const response = await fetchImplementation(url, {
        ...init,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const body = await response.text();
      if (response.ok) return body;
      failure = {
        kind: 'http',
        status: response.status,
        body,
        retryAfter: response.headers.get('retry-after'),
      };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      failure = { kind: timeout.aborted ? 'timeout' : 'network', cause: error };
    }
    const retryable = failure.kind !== 'http' || failure.status === 429 || failure.status >= 500;
    const delay = retryDelayMs(
      attempt,
      failure.kind === 'http' ? failure.retryAfter : null,
      policy.baseDelayMs,
    );
    if (!retryable || attempt >= policy.maxRetries || delay > MAX_RETRY_DELAY_MS) {
      throw failureError(url, failure, attempt + 1);
    }
    await sleep(delay, signal);
  }
}

/**
 * Delay before retry number `attempt + 1`: the server's `Retry-After` (seconds or an HTTP date) when
 * given, else `baseDelayMs × 2^attempt` scaled by a random 50–100% so clients do not retry in lockstep.
 */
export function retryDelayMs(
  attempt: number,
  retryAfter: string | null,
  baseDelayMs: number,
  now = Date.now(),
): number {
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2);
}

/** The error for the last failure; it names `url` without the key its base URL may carry. */
function failureError(url: string, failure: Failure, attempts: number): EngramError {
  const shownUrl = redactedUrl(url);
  if (failure.kind === 'http') {
    return new EngramError(
      'embedding_request_failed',
      'unavailable',
      `Embedding request to ${shownUrl} failed with HTTP ${failure.status} after ${attempts} attempt(s)`,
      { details: { status: failure.status, attempts, body: failure.body.slice(0, 500) } },
    );
  }
  const what = failure.kind === 'timeout' ? 'timed out' : 'could not reach the server';
  return new EngramError(
    failure.kind === 'timeout' ? 'embedding_timeout' : 'embedding_request_failed',
    'unavailable',
    `Embedding request to ${shownUrl} ${what} after ${attempts} attempt(s)`,
    { details: { attempts }, cause: causeWithoutUrlSecrets(failure.cause, url) },
  );
}

function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
