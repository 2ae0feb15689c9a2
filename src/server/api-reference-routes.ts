import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RouteDocs } from './route-docs.js';

/** Swagger UI's files served under `/docs/`, from the installed `swagger-ui-dist` (never a CDN). */
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The page itself: Swagger UI over `/openapi.json`, started by a same-origin script (no inline code). */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>engram API reference</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="api-reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/api-reference.js"></script>
</body>
</html>
`;

const start = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#api-reference',
  deepLinking: true,
  tryItOutEnabled: false,
  validatorUrl: null,
});
`;

/** Everything on the page comes from this server; Swagger UI sets inline styles and data-URI images. */
const contentSecurityPolicy =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'";

const tags = ['system'];
const docs = {
  page: {
    summary: 'Interactive API reference (Swagger UI over /openapi.json), served offline',
    tags,
    response: z.string(),
    responseMediaType: 'text/html',
  },
  asset: {
    summary: 'A file of the API reference page (Swagger UI’s script, style sheet, icon)',
    tags,
    params: z.object({ file: z.string() }),
    response: z.string(),
    responseMediaType: 'application/octet-stream',
    errors: { 404: 'Not one of the page’s files' },
  },
} satisfies Record<string, RouteDocs>;

/**
 * `GET /docs`: the interactive API reference, public like `/openapi.json`. Its script and style
 * sheet are read from the `swagger-ui-dist` package on first use and kept in memory (about 1.5 MB).
 */
export function registerApiReferenceRoutes(app: FastifyInstance): void {
  const directory = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Promise<Buffer>>();
  const config = { permission: 'public' as const };

  app.get('/docs', { config: { ...config, docs: docs.page } }, async (_request, reply) =>
    reply
      .header('content-security-policy', contentSecurityPolicy)
      .type('text/html; charset=utf-8')
      .send(page),
  );

  app.get('/docs/:file', { config: { ...config, docs: docs.asset } }, async (request, reply) => {
    const { file } = request.params as { file: string };
    if (file === 'api-reference.js') return reply.type('text/javascript; charset=utf-8').send(start);
    const type = Object.hasOwn(assets, file) ? assets[file] : undefined;
    if (type === undefined) return reply.status(404).send({ detail: 'Not Found' });
    let content = cache.get(file);
    if (!content) {
      content = readFile(join(directory, file));
      cache.set(file, content);
      content.catch(() => cache.delete(file));
    }
    return reply
      .header('cache-control', 'public, max-age=86400')
      .type(type)
      .send(await content);
  });
}
