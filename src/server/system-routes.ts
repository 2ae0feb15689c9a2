import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Engram } from '../engram.js';

/** A key no client uses: reading it proves the store answers without touching real data. */
const probeKey = {
  tenantId: 'default',
  namespace: null,
  userId: null,
  sessionId: '__engram_readiness_probe__',
};

/**
 * `GET /v1/health` (AMS liveness: `{"now": <ms>}`, never authenticated), `GET /ready` (200 when the
 * store answers, 503 while shutting down or when it fails) and `GET /metrics` (Prometheus text).
 */
export function registerSystemRoutes(
  app: FastifyInstance,
  options: { engram: Engram; registry: Registry; isClosing: () => boolean },
): void {
  const config = { permission: 'public' as const };
  app.get('/v1/health', { config }, async () => ({ now: Date.now() }));

  app.get('/ready', { config }, async (request, reply) => {
    if (options.isClosing()) return reply.status(503).send({ status: 'shutting_down' });
    try {
      await options.engram.store.getSession(probeKey);
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness probe failed');
      return reply.status(503).send({ status: 'unavailable', detail: (error as Error).message });
    }
  });

  app.get('/metrics', { config: { permission: 'admin' } }, async (_request, reply) => {
    const text = await options.registry.metrics();
    return reply.header('content-type', options.registry.contentType).send(text);
  });
}
