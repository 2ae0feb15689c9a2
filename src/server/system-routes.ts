import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import type { Engram } from '../engram.js';
import type { RouteDocs } from './route-docs.js';

/** A key no client uses: reading it proves the store answers without touching real data. */
const probeKey = {
  tenantId: 'default',
  namespace: null,
  userId: null,
  sessionId: '__engram_readiness_probe__',
};

const tags = ['system'];

/** `/openapi.json` entries of the routes below. */
const docs = {
  health: {
    summary: 'Liveness: the server time in milliseconds',
    tags,
    response: z.object({ now: z.number().int() }),
  },
  ready: {
    summary: 'Readiness: 200 when the store answers, 503 while shutting down or when it fails',
    tags,
    response: z.object({ status: z.literal('ready') }),
    description: 'The 503 body is `{"status": "shutting_down" | "unavailable", "detail"?}`.',
  },
  metrics: {
    summary: 'Prometheus metrics',
    tags,
    response: z.string(),
    responseMediaType: 'text/plain; version=0.0.4',
  },
} satisfies Record<string, RouteDocs>;

/**
 * `GET /v1/health` (AMS liveness: `{"now": <ms>}`, never authenticated), `GET /ready` (200 when the
 * store answers, 503 while shutting down or when it fails) and `GET /metrics` (Prometheus text).
 */
export function registerSystemRoutes(
  app: FastifyInstance,
  options: { engram: Engram; registry: Registry; isClosing: () => boolean },
): void {
  const config = { permission: 'public' as const };
  app.get('/v1/health', { config: { ...config, docs: docs.health } }, async () => ({ now: Date.now() }));

  app.get('/ready', { config: { ...config, docs: docs.ready } }, async (request, reply) => {
    if (options.isClosing()) return reply.status(503).send({ status: 'shutting_down' });
    try {
      await options.engram.store.getSession(probeKey);
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness probe failed');
      return reply.status(503).send({ status: 'unavailable', detail: (error as Error).message });
    }
  });

  app.get('/metrics', { config: { permission: 'admin', docs: docs.metrics } }, async (_request, reply) => {
    const text = await options.registry.metrics();
    return reply.header('content-type', options.registry.contentType).send(text);
  });
}
