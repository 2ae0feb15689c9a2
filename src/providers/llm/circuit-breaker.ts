import { EngramError } from '../../core/errors.js';
import { truncateText } from '../../core/preview-value.js';
import { LlmError } from './llm-error.js';
import type { ChatRequest, LlmProvider } from './llm-provider.js';

/** How a breaker reacts to a failing provider. */
/**
 * A provider's failure as engram's: a custom provider may throw anything (a TypeError, a string),
 * and callers are promised EngramErrors with stable codes. A caller's abort stays an abort.
 */
function asLlmError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (error instanceof EngramError) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  if (signal?.aborted && error === signal.reason) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError('llm_unavailable', `The LLM provider failed: ${truncateText(message)}`, {
    cause: error,
  });
}

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. Default 5. */
  failureThreshold?: number;
  /** How long the first opening lasts; each failed probe doubles it. Default 30 s. */
  cooldownMs?: number;
  /** Longest opening. Default 10 min. */
  maxCooldownMs?: number;
  clock?: () => Date;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/** A provider's circuit: whether calls may go out now, and what the calls did. */
export interface CircuitBreaker {
  state(): CircuitState;
  /** True while closed, and in half-open while no probe is out: a job needing the provider may run. */
  allows(): boolean;
  /** Milliseconds until an open circuit lets a probe through (0 unless open). */
  retryInMs(): number;
}

/**
 * The failures that say the provider (not the request) is in trouble: it is down, slow, rate
 * limiting or answering garbage. A rejected request (bad key aside, a 4xx is about the request),
 * an unparsable model output and an abort by the caller do not count.
 */
const providerFailures = new Set([
  'llm_unavailable',
  'llm_timeout',
  'llm_rate_limited',
  'llm_response_invalid',
]);

/**
 * Wraps `llm` with a circuit breaker, one per provider: after `failureThreshold` consecutive
 * provider failures the circuit opens and every call fails at once (LlmError `llm_unavailable`,
 * retryable, with `retryAfterMs`) without reaching the provider; background jobs that need the
 * model are not even claimed (`breaker.allows()`, the job runner's `isReady`), so they wait
 * instead of burning attempts. After the cooldown one call goes through as a probe (half-open):
 * success closes the circuit, failure opens it again for twice as long (up to `maxCooldownMs`).
 */
export function withCircuitBreaker(
  llm: LlmProvider,
  options: CircuitBreakerOptions = {},
): LlmProvider & { breaker: CircuitBreaker } {
  const threshold = options.failureThreshold ?? 5;
  const baseCooldownMs = options.cooldownMs ?? 30_000;
  const maxCooldownMs = options.maxCooldownMs ?? 600_000;
  const clock = options.clock ?? (() => new Date());
  let failures = 0;
  let openUntil = 0;
  let cooldownMs = baseCooldownMs;
  let probing = false;

  const state = (): CircuitState =>
    failures < threshold ? 'closed' : clock().getTime() < openUntil ? 'open' : 'half-open';

  const breaker: CircuitBreaker = {
    state,
    allows: () => {
      const now = state();
      return now === 'closed' || (now === 'half-open' && !probing);
    },
    retryInMs: () => (state() === 'open' ? openUntil - clock().getTime() : 0),
  };

  /** Lets a call out, or rejects it at once; resolves whether the call is the half-open probe. */
  function admit(): boolean {
    const now = state();
    if (now === 'closed') return false;
    if (now === 'half-open' && !probing) {
      probing = true;
      return true;
    }
    const wait = Math.max(breaker.retryInMs(), 1_000);
    throw new LlmError(
      'llm_unavailable',
      `The LLM ${llm.model} failed ${failures} times in a row: calls are paused (circuit open) for ` +
        `${Math.ceil(wait / 1_000)} s more`,
      { retryAfterMs: wait, details: { circuit: now } },
    );
  }

  function settle(probe: boolean, error: unknown): void {
    if (probe) probing = false;
    if (error === undefined) {
      failures = 0;
      cooldownMs = baseCooldownMs;
      return;
    }
    if (!(error instanceof LlmError) || !providerFailures.has(error.code)) return;
    failures += 1;
    if (failures < threshold) return;
    // Opens now (the threshold reached), or again after a failed probe with a longer cooldown.
    if (probe) cooldownMs = Math.min(maxCooldownMs, cooldownMs * 2);
    openUntil = clock().getTime() + cooldownMs;
  }

  return {
    model: llm.model,
    breaker,
    async complete(request: ChatRequest) {
      const probe = admit();
      try {
        const answer = await llm.complete(request);
        settle(probe, undefined);
        return answer;
      } catch (caught) {
        const error = asLlmError(caught, request.signal);
        settle(probe, error);
        throw error;
      }
    },
    async *stream(request: ChatRequest) {
      const probe = admit();
      try {
        yield* llm.stream(request);
        settle(probe, undefined);
      } catch (caught) {
        const error = asLlmError(caught, request.signal);
        settle(probe, error);
        throw error;
      } finally {
        // A consumer that stopped early neither proved nor disproved the provider.
        if (probe && probing) probing = false;
      }
    },
  };
}
