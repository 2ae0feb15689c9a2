import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Engram } from '../../engram.js';
import { tenantOf } from '../auth/principal.js';
import { readQuery } from '../request-parts.js';
import { extensionRoute } from './extension-route.js';

export const sessionListQuerySchema = z.object({
  namespace: z.string().max(256).optional(),
  user_id: z.string().max(256).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const sessionSummaryBodySchema = z.object({
  session_id: z.string(),
  namespace: z.string().nullable(),
  user_id: z.string().nullable(),
  updated_at: z.string(),
  message_count: z.number(),
});

/** `GET /v1/sessions`'s answer. */
export const sessionSummaryListResponseSchema = z.object({
  sessions: z.array(sessionSummaryBodySchema),
  total: z.number(),
});

/**
 * `GET /v1/sessions`: sessions with their keys, newest first. AMS's list answers bare ids, which
 * do not say which namespace and user a session belongs to; the Memory Browser needs the keys.
 */
export function registerSessionListRoutes(app: FastifyInstance, engram: Engram): void {
  app.get(
    '/v1/sessions',
    {
      config: extensionRoute({
        summary: 'List sessions with their namespace, user, last update and size, newest first',
        description:
          '`namespace`, `user_id` (exact), `limit` 1–100 (20), `offset`; `total` is the true count.',
        tags: ['working-memory'],
        query: sessionListQuerySchema,
        response: sessionSummaryListResponseSchema,
      }),
    },
    async (request) => {
      const query = readQuery(request, sessionListQuerySchema);
      const { sessions, total } = await engram.sessions.list({
        tenantId: tenantOf(request),
        limit: query.limit,
        offset: query.offset,
        ...(query.namespace === undefined ? {} : { namespace: query.namespace }),
        ...(query.user_id === undefined ? {} : { userId: query.user_id }),
      });
      return {
        sessions: sessions.map((session) => ({
          session_id: session.sessionId,
          namespace: session.namespace,
          user_id: session.userId,
          updated_at: session.updatedAt,
          message_count: session.messageCount,
        })),
        total,
      };
    },
  );
}
