import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Engram } from '../../engram.js';
import { sessionRefFromRequest } from '../ams/session-ref-from-request.js';
import { amsTaskSchema, toAmsTask } from '../ams/task-routes.js';
import { sessionPathSchema, sessionScopeQuerySchema } from '../ams/working-memory-schemas.js';
import { readBody } from '../request-parts.js';
import { extensionRoute } from './extension-route.js';

/** Optional: the agent whose procedure the capture proposes (default: the session's latest one). */
export const sessionEndBodySchema = z.strictObject({ agent_id: z.string().min(1).max(256).optional() });

export const sessionEndResponseSchema = z.object({
  session_id: z.string(),
  /** The last message seq the end covers. */
  through_seq: z.number(),
  /** The background task writing the episode (see `GET /v1/tasks/{id}`); null when there were no messages. */
  task: amsTaskSchema.nullable(),
});

/** `POST /v1/working-memory/{session_id}/end`: ends the session now (episode, procedure capture). */
export function registerSessionEndRoutes(app: FastifyInstance, engram: Engram): void {
  app.post(
    '/v1/working-memory/:session_id/end',
    {
      config: extensionRoute(
        {
          summary: 'End the session: write its episode (and propose a procedure) in the background',
          description:
            'Enqueues one `end-session` task for the messages so far; ending again before new messages ' +
            'arrive returns the same task. Captured procedures are stored pending until approved. ' +
            'An empty body is allowed.',
          tags: ['working-memory'],
          params: sessionPathSchema,
          query: sessionScopeQuerySchema,
          body: sessionEndBodySchema,
          response: sessionEndResponseSchema,
          status: 202,
        },
        'write',
      ),
    },
    async (request, reply) => {
      const ref = sessionRefFromRequest(request);
      const body =
        request.body === undefined || request.body === null ? {} : readBody(request, sessionEndBodySchema);
      const result = await engram.sessions.end(
        ref,
        body.agent_id === undefined ? {} : { agentId: body.agent_id },
      );
      return reply.status(202).send({
        session_id: ref.sessionId,
        through_seq: result.throughSeq,
        task: result.job ? toAmsTask(result.job) : null,
      });
    },
  );
}
