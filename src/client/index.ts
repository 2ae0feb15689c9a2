/**
 * `engram/client`: a typed HTTP client of the engram server. Types come from the server's own zod
 * schemas (type-only imports: this entry point loads none of the server's code).
 */
export type * from './client-types.js';
export { createEngramClient, type EngramClient, entityTag, versionOfEntityTag } from './engram-client.js';
export { EngramClientError, errorFromResponse } from './engram-client-error.js';
export type {
  CallOptions,
  ClientOptions,
  ClientResponse,
  ConditionalOptions,
  RequestSpec,
} from './http-transport.js';
export { defaultRetryOptions, type RetryOptions, retryAfterMs, retryDelayMs } from './retry-delay.js';
export type { Tagged } from './session-methods.js';
