import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { permissionOf } from '../auth/principal.js';
import type { DocumentedRoute } from './documented-route.js';
import { buildOpenApiDocument } from './openapi-document.js';

/** src/server/openapi and dist/server/openapi are both three levels below the package root. */
const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };

const description =
  'Working memory for LLM agents. `/v1` is wire-compatible with redis agent-memory-server 0.15; ' +
  'operations marked `x-engram-extension` are engram’s own. While authentication is disabled ' +
  '(loopback only) no credential is needed.';

/**
 * Serves `GET /openapi.json` (public): the OpenAPI 3.1 document of every route registered after
 * this call, built once when the server is ready from each route's `config.docs`. Call it before
 * registering the other routes (Fastify's `onRoute` sees only later routes).
 */
export function registerOpenApi(app: FastifyInstance): void {
  const routes: DocumentedRoute[] = [];
  let text = '';
  app.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    for (const method of [route.method].flat()) {
      // HEAD variants are Fastify's automatic twins of GET routes.
      if (method === 'HEAD') continue;
      routes.push({
        method,
        url: route.url,
        docs: config.docs,
        permission: permissionOf(method, config.permission),
        errorShape: config.errorShape ?? 'ams',
      });
    }
  });
  app.addHook('onReady', async () => {
    text = JSON.stringify(buildOpenApiDocument(routes, { title: 'engram', version, description }));
  });
  const docs = {
    summary: 'This OpenAPI 3.1 document',
    tags: ['system'],
    response: z.object({ openapi: z.string() }).catchall(z.unknown()),
  };
  app.get('/openapi.json', { config: { permission: 'public', docs } }, async (_request, reply) =>
    reply.type('application/json').send(text),
  );
}
