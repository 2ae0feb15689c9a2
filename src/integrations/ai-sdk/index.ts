/**
 * `engram/ai-sdk`: engram as a Vercel AI SDK language-model middleware (needs the `ai` package,
 * an optional peer dependency).
 */

export type { SessionScope } from './engram-memory-backend.js';
export {
  type EngramMiddlewareErrorEvent,
  type EngramMiddlewareOptions,
  engramMiddleware,
} from './engram-middleware.js';
