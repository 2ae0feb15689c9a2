import { EngramError } from '../../core/errors.js';
import type { JobFailure } from '../../stores/job-store.js';

/** How failed attempts are spaced. */
export interface RetryPolicy {
  /** Delay before the second attempt; doubles with each attempt after that. */
  baseDelayMs: number;
  /** Cap of the exponential delay (a server's Retry-After may ask for more and gets it). */
  maxDelayMs: number;
}

/**
 * Whether an attempt that failed with `error` is worth repeating. An error says so itself with a
 * boolean `retryable` (LlmError does: a 429 or a timeout is, a rejected key is not); otherwise a
 * validation error is final (the same payload fails the same way) and anything else is retried.
 */
export function isRetryable(error: unknown): boolean {
  const declared = (error as { retryable?: unknown } | null)?.retryable;
  if (typeof declared === 'boolean') return declared;
  return !(error instanceof EngramError && error.category === 'validation');
}

/**
 * Wait before attempt `attempts + 1`: `baseDelayMs × 2^(attempts − 1)`, capped at `maxDelayMs`,
 * scaled by a random 50–100 % (full jitter's spread without its near-zero waits), and never shorter
 * than the `retryAfterMs` the error carries.
 */
export function retryDelayMs(
  attempts: number,
  error: unknown,
  policy: RetryPolicy,
  random = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  const jittered = exponential * (0.5 + random() / 2);
  const requested = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof requested === 'number' && requested > jittered ? requested : jittered;
}

/** What the job shows for a failed attempt: the message, and the stable code of an EngramError. */
export function failureOf(error: unknown): JobFailure {
  if (error instanceof EngramError) return { message: error.message, code: error.code };
  if (error instanceof Error) return { message: error.message || error.name, code: null };
  return { message: String(error), code: null };
}
