import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';

/** The built UI (`npm run build:ui`): dist/ui from src/server (tsx) and from dist/server (the package). */
const defaultDirectories = [
  fileURLToPath(new URL('../../dist/ui/', import.meta.url)),
  fileURLToPath(new URL('../ui/', import.meta.url)),
];

const mediaTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Same origin only, no inline script, nothing from elsewhere: the UI holds an API key. */
const securityHeaders = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

interface Asset {
  type: string;
  etag: string;
  plain: Buffer;
  /** Precompressed by the build (`.br`, `.gz` beside the file). */
  br?: Buffer;
  gzip?: Buffer;
}

/** Reads every asset once: the UI is a handful of small files, held in memory. */
function loadAssets(directory: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(directory)) {
    const type = mediaTypes[name.slice(name.lastIndexOf('.'))];
    if (!type) continue;
    const plain = readFileSync(join(directory, name));
    const sibling = (suffix: string) => {
      const path = join(directory, name + suffix);
      return existsSync(path) ? { [suffix === '.br' ? 'br' : 'gzip']: readFileSync(path) } : {};
    };
    const etag = `"${createHash('sha256').update(plain).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { type, etag, plain, ...sibling('.br'), ...sibling('.gz') });
  }
  return assets;
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  reply.headers({ ...securityHeaders, etag: asset.etag, vary: 'accept-encoding' }).type(asset.type);
  if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
  const accepted = String(request.headers['accept-encoding'] ?? '');
  if (asset.br && /\bbr\b/.test(accepted)) return reply.header('content-encoding', 'br').send(asset.br);
  if (asset.gzip && /\bgzip\b/.test(accepted))
    return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.plain);
}

const docs = {
  index: {
    summary: 'The Memory Browser and Context Inspector (HTML)',
    description: 'A single page; it calls this API with the key the person enters (docs/ui.md).',
    tags: ['ui'],
    response: z.string(),
    responseMediaType: 'text/html',
    errors: { 503: 'The UI is not built (`npm run build:ui`)' },
  },
  asset: {
    summary: 'A file of the web UI (script, style sheet, icon)',
    tags: ['ui'],
    params: z.object({ wildcard: z.string().describe('The file name, e.g. app.js') }),
    response: z.string(),
    responseMediaType: 'text/javascript',
    errors: { 404: 'No such file' },
  },
};

/**
 * Serves the built web UI at `/ui` (public: the page holds no data; every API call it makes needs
 * the caller's credential). Without a build, `/ui` answers 503 saying how to build it.
 */
export function registerUiRoutes(app: FastifyInstance, options: { directory?: string } = {}): void {
  let assets: Map<string, Asset> | undefined;
  // Read on first use, then served from memory (a build made after start is found then too).
  const loaded = () => {
    if (assets) return assets;
    const directory = (options.directory ? [options.directory] : defaultDirectories).find((candidate) =>
      existsSync(join(candidate, 'index.html')),
    );
    if (!directory) return undefined;
    assets = loadAssets(directory);
    return assets;
  };
  const config = { permission: 'public' as const };

  const index = async (request: FastifyRequest, reply: FastifyReply) => {
    const page = loaded()?.get('index.html');
    if (!page) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web UI is not built: run `npm run build:ui` (npm install does it).');
    }
    return send(request, reply, page);
  };
  app.get('/ui', { config: { ...config, docs: docs.index } }, index);
  app.get('/ui/', { config: { ...config, docs: docs.index } }, index);
  app.get('/ui/*', { config: { ...config, docs: docs.asset } }, async (request, reply) => {
    const name = (request.params as { '*': string })['*'];
    const asset = name === 'index.html' ? undefined : loaded()?.get(name);
    if (!asset) return reply.status(404).send({ detail: 'Not Found' });
    return send(request, reply, asset);
  });
}
