/** How the client retries 429 and 503 answers. */
export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 3. */
  maxRetries?: number;
  /** First backoff when the server says nothing (doubles each retry), in ms. Default 250. */
  baseDelayMs?: number;
  /** No wait is longer, whatever `Retry-After` asks, in ms. Default 10,000. */
  maxDelayMs?: number;
}

export const defaultRetryOptions: Required<RetryOptions> = {
  maxRetries: 3,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
};

/**
 * The options in force: the defaults, overridden by every option given (an option set to
 * `undefined` keeps its default, as if absent); `false` turns retrying off. Throws a `RangeError`
 * naming the option for a value that is not a number in range (`maxRetries` a whole number ≥ 0,
 * the delays finite and ≥ 0).
 */
export function resolveRetryOptions(retry: RetryOptions | false | undefined): Required<RetryOptions> {
  if (retry === false) return { ...defaultRetryOptions, maxRetries: 0 };
  const given = Object.fromEntries(
    Object.entries(retry ?? {}).filter(([, value]) => value !== undefined),
  ) as RetryOptions;
  const options = { ...defaultRetryOptions, ...given };
  const check = (name: keyof RetryOptions, valid: (value: number) => boolean, what: string) => {
    const value: unknown = options[name];
    if (typeof value !== 'number' || !valid(value)) {
      throw new RangeError(`retry.${name} must be ${what}, got ${String(value)}`);
    }
  };
  check('maxRetries', (value) => Number.isSafeInteger(value) && value >= 0, 'a whole number ≥ 0');
  check('baseDelayMs', (value) => Number.isFinite(value) && value >= 0, 'a finite number ≥ 0');
  check('maxDelayMs', (value) => Number.isFinite(value) && value >= 0, 'a finite number ≥ 0');
  return options;
}

/** `Retry-After` in ms: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or invalid. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  // An HTTP date names its weekday and month; anything else (`-1`, `1.5`) is not one.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `attempt` (0 for the first retry): what `Retry-After` asks plus up
 * to 10% jitter, else exponential backoff with full jitter; never more than `maxDelayMs`. Jitter
 * keeps many clients told to wait the same time from coming back at the same instant.
 */
export function retryDelayMs(
  attempt: number,
  retryAfter: number | undefined,
  options: Required<RetryOptions>,
  random: () => number = Math.random,
): number {
  const delay =
    retryAfter === undefined
      ? random() * options.baseDelayMs * 2 ** attempt
      : retryAfter * (1 + 0.1 * random());
  return Math.min(options.maxDelayMs, Math.round(delay));
}
