import type { z } from 'zod';
import type { Permission } from './auth/principal.js';

/**
 * What a route tells the OpenAPI document about itself, from the same zod schemas that validate
 * its requests (handlers still parse with `readBody`/`readQuery`/`readPath`).
 */
export interface RouteDocs {
  summary: string;
  description?: string;
  /** Groups in the document: `working-memory`, `long-term-memory`, `agents`, … */
  tags?: string[];
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The 200 (or `status`) response body. */
  response?: z.ZodType;
  status?: number;
  /** Media type of the response body when it is not JSON (e.g. Prometheus text). */
  responseMediaType?: string;
  /** Media types the body is accepted in; default `application/json`. */
  bodyMediaTypes?: string[];
  /** Media types also accepted whose body is the raw text itself (a string, not `body`'s JSON). */
  textBodyMediaTypes?: string[];
  /**
   * Error statuses this route answers besides validation, authentication and 500, with when
   * (e.g. `{ 404: 'No such session' }`); their body is the route's error shape.
   */
  errors?: Record<number, string>;
  /** Success statuses besides `status` (e.g. 202 for work moved to the background), with their bodies. */
  otherResponses?: Record<
    number,
    { description: string; response: z.ZodType; headers?: Record<string, string> }
  >;
  /** Request headers the route reads (e.g. `If-Match`), with what each does. */
  headers?: Record<string, string>;
  /** Headers of the success answer (e.g. `ETag`, `Location`), with what each carries. */
  responseHeaders?: Record<string, string>;
  /** Extension routes (not in AMS) are marked `x-engram-extension`. */
  extension?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's entry in `/openapi.json`. */
    docs?: RouteDocs;
    /** What the caller's role must grant; default `read` for GET, `write` otherwise. */
    permission?: Permission;
  }
}
