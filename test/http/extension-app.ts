import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createEngram, type Engram, type EngramOptions } from '../../src/engram.js';
import { authorize, type Principal, permissionOf, type Role } from '../../src/server/auth/principal.js';
import { describeError } from '../../src/server/describe-error.js';
import { registerExtensionRoutes } from '../../src/server/extensions/register-extension-routes.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/** A caller: its tenant and role, as an authenticator would resolve them from a credential. */
export interface Caller {
  tenant?: string;
  role?: Role;
}

export interface ExtensionApp {
  app: FastifyInstance;
  engram: Engram;
  /** Injects a request as `caller` (default: admin of tenant `t1`); a non-string body is JSON. */
  call(
    method: string,
    url: string,
    options?: { body?: unknown; caller?: Caller; headers?: Record<string, string> },
    // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON answers
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
}

/**
 * The extension routes on a Fastify app wired like createServer (string bodies, permission check
 * before the handler, error shapes), but with the principal taken from the test's `caller`, so
 * tenants and roles can be exercised before real credentials exist. Over a SQLite file.
 */
export function useExtensionApp(options: Omit<EngramOptions, 'store'> = {}): () => ExtensionApp {
  const temporaryDirectory = useTemporaryDirectories('engram-extensions-');
  let started: ExtensionApp | undefined;
  beforeAll(async () => {
    let last = 0;
    const clock = () => {
      last = Math.max(Date.now(), last + 1);
      return new Date(last);
    };
    const store = await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db'), clock });
    const engram = await createEngram({ store, clock, sweepIntervalMs: 0, ...options });
    const app = Fastify();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.decorateRequest('principal', null as unknown as Principal);
    app.addHook('onRequest', async (request) => {
      const permission = permissionOf(request.method, request.routeOptions.config.permission);
      request.principal = {
        tenantId: String(request.headers['x-test-tenant'] ?? 't1'),
        role: String(request.headers['x-test-role'] ?? 'admin') as Role,
        subject: 'test',
      };
      if (permission !== 'public') authorize(request, permission);
    });
    app.setErrorHandler((error, request, reply) => {
      const answer = describeError(error, request.routeOptions.config.errorShape ?? 'ams');
      return reply.status(answer.status).send(answer.body);
    });
    registerExtensionRoutes(app, engram);
    await app.ready();
    started = {
      app,
      engram,
      async call(method, url, { body, caller = {}, headers = {} } = {}) {
        const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
        const response = await app.inject({
          method: method as 'GET',
          url,
          headers: {
            ...(payload === undefined || typeof body === 'string'
              ? {}
              : { 'content-type': 'application/json' }),
            'x-test-tenant': caller.tenant ?? 't1',
            'x-test-role': caller.role ?? 'admin',
            ...headers,
          },
          ...(payload === undefined ? {} : { payload }),
        });
        const text = response.body;
        return {
          status: response.statusCode,
          body: text ? JSON.parse(text) : null,
          headers: response.headers,
        };
      },
    };
  });
  afterAll(async () => {
    await started?.app.close();
    await started?.engram.close();
  });
  return () => {
    if (!started) throw new Error('The extension app has not started');
    return started;
  };
}
