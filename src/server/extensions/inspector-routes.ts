import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Engram } from '../../engram.js';
import { sessionRefFromRequest } from '../ams/session-ref-from-request.js';
import { sessionPathSchema, sessionScopeQuerySchema } from '../ams/working-memory-schemas.js';
import { readQuery } from '../request-parts.js';
import { extensionRoute } from './extension-route.js';
import { toTraceRecordBody, traceRecordBodySchema } from './trace-body.js';

export const tracesQuerySchema = sessionScopeQuerySchema.extend({
  limit: z.coerce.number().int().min(1).max(1_000).default(20),
});

/** The Context Inspector's data: recorded traces per session. Needs `inspect` (inspector, admin). */
export function registerInspectorRoutes(app: FastifyInstance, engram: Engram): void {
  app.get(
    '/v1/inspector/sessions/:session_id/traces',
    {
      config: extensionRoute(
        {
          summary: 'List a session’s context traces, newest first',
          description:
            'Ids, scores, token counts, reasons and timings of each assembled context; never content. ' +
            'Only the last N per session are kept (engram option `traceRetention`, default 50).',
          tags: ['inspector'],
          params: sessionPathSchema,
          query: tracesQuerySchema,
          response: z.object({ traces: z.array(traceRecordBodySchema), total: z.number() }),
        },
        'inspect',
      ),
    },
    async (request) => {
      const ref = sessionRefFromRequest(request);
      const { limit } = readQuery(request, tracesQuerySchema);
      const { traces, total } = await engram.traces.list(ref, { limit });
      return { traces: traces.map(toTraceRecordBody), total };
    },
  );
}
