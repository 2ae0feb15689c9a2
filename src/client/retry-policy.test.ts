import { describe, expect, it } from 'vitest';
import { EngramClientError, errorFromResponse } from './engram-client-error.js';
import { isIdempotentMethod, retriesAnswer, retriesNetworkFailure } from './retry-policy.js';

const engram503 = (code: string, details?: Record<string, unknown>) =>
  errorFromResponse(503, { error: { code, category: 'unavailable', message: code, details } });

describe('retriesAnswer', () => {
  it('retries a 429 whatever the method', () => {
    for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE']) {
      expect(retriesAnswer(method, errorFromResponse(429, { detail: 'slow down' }))).toBe(true);
    }
  });

  it('retries a 503 of an idempotent method, unless its code is permanent', () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expect(retriesAnswer(method, engram503('store_unavailable'))).toBe(true);
      expect(retriesAnswer(method, errorFromResponse(503, { detail: 'down' }))).toBe(true);
      expect(retriesAnswer(method, engram503('llm_not_configured'))).toBe(false);
      expect(retriesAnswer(method, engram503('llm_request_rejected'))).toBe(false);
    }
  });

  it('retries a 503 of POST or PATCH only when its code says nothing was done', () => {
    for (const method of ['POST', 'PATCH']) {
      // A store that failed may have failed mid-write; an AMS or proxy 503 says nothing.
      expect(retriesAnswer(method, engram503('store_unavailable'))).toBe(false);
      expect(retriesAnswer(method, errorFromResponse(503, { detail: 'No LLM is configured' }))).toBe(false);
      expect(retriesAnswer(method, engram503('llm_unavailable'))).toBe(false);
      expect(retriesAnswer(method, engram503('embedding_request_failed'))).toBe(false);
      expect(retriesAnswer(method, engram503('llm_not_configured'))).toBe(false);
      // Refused before any work.
      expect(retriesAnswer(method, engram503('llm_unavailable', { circuit: 'open' }))).toBe(true);
      expect(retriesAnswer(method, engram503('auth_unavailable'))).toBe(true);
      expect(retriesAnswer(method, engram503('shutting_down'))).toBe(true);
    }
  });

  it('does not retry other statuses', () => {
    for (const status of [400, 404, 409, 412, 500, 502, 504]) {
      expect(retriesAnswer('GET', errorFromResponse(status, {}))).toBe(false);
    }
  });
});

describe('retriesNetworkFailure', () => {
  const failure = (cause: unknown) =>
    new EngramClientError(0, 'network_error', 'fetch failed', undefined, { cause });

  it('retries an idempotent method always, POST and PATCH only when the connection was refused', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    });
    const reset = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }),
    });
    expect(retriesNetworkFailure('GET', failure(reset))).toBe(true);
    expect(retriesNetworkFailure('DELETE', failure(reset))).toBe(true);
    expect(retriesNetworkFailure('POST', failure(reset))).toBe(false);
    expect(retriesNetworkFailure('PATCH', failure(new TypeError('fetch failed')))).toBe(false);
    expect(retriesNetworkFailure('POST', failure(refused))).toBe(true);
  });

  it('names the idempotent methods', () => {
    expect(['GET', 'get', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'].every(isIdempotentMethod)).toBe(true);
    expect(['POST', 'PATCH'].some(isIdempotentMethod)).toBe(false);
  });
});
