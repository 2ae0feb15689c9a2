import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { truncateText } from '../core/preview-value.js';
import type { Engram } from '../engram.js';
import { registerLongTermMemoryRoutes } from './ams/long-term-memory-routes.js';
import { registerMemoryPromptRoutes } from './ams/memory-prompt-routes.js';
import { registerSummaryViewRoutes } from './ams/summary-view-routes.js';
import { registerTaskRoutes } from './ams/task-routes.js';
import { registerWorkingMemoryRoutes } from './ams/working-memory-routes.js';
import { registerApiReferenceRoutes } from './api-reference-routes.js';
import { createAuthenticator } from './auth/authenticator.js';
import {
  anonymousPrincipal,
  applyOperationPermission,
  authorize,
  type Principal,
  permissionOf,
} from './auth/principal.js';
import { describeError, type ErrorShape } from './describe-error.js';
import { registerChatRoutes } from './extensions/chat-routes.js';
import { registerExtensionRoutes } from './extensions/register-extension-routes.js';
import { registerSessionEndRoutes } from './extensions/session-end-routes.js';
import { registerSessionExtensionRoutes } from './extensions/session-extension-routes.js';
import { registerWhoamiRoutes } from './extensions/whoami-routes.js';
import { createHostGuard } from './host-guard.js';
import { loggedError } from './logged-error.js';
import { loggedUrl } from './logged-url.js';
import { assertLoopbackHost } from './loopback-host.js';
import { registerMcpRoutes } from './mcp-routes.js';
import { registerOpenApi } from './openapi/register-openapi.js';
import { type BodyFieldLimits, warmBodyFieldCounter } from './overlong-body-field.js';
import { readUtf8Body } from './parse-utf8-body.js';
import { createRouteTable } from './route-table.js';
import { type ServerConfig, type ServerConfigInput, serverConfigSchema } from './server-config.js';
import { createServerLogger } from './server-logger.js';
import { createServerMetrics, type ServerMetrics } from './server-metrics.js';
import { registerSystemRoutes } from './system-routes.js';
import { registerUiRoutes } from './ui-routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The matched route's template, `unmatched` for none: set by onRequest for the hooks after it. */
    routeTemplate: string;
  }
  interface FastifyContextConfig {
    /** Error body of the route: AMS `{"detail"}` (default) or engram `{"error"}`. */
    errorShape?: ErrorShape;
    /** Most items of each top-level list and characters of each top-level string of the JSON body, counted before it is parsed. */
    bodyFieldLimits?: BodyFieldLimits;
    /**
     * A JSON body of at least WORKER_BODY_BYTES reaches the route as `BodyBytes` (its bytes, for
     * another thread to decode and parse), not as text.
     */
    bodyAsBytes?: boolean;
  }
}

/** What createServer needs: an engram instance (closed by `close()`), settings and optionally a logger. */
export interface ServerOptions {
  engram: Engram;
  config?: ServerConfigInput;
  logger?: Logger;
  /**
   * The metrics registry to serve at `/metrics`. Pass the one whose `observeStore`/`observeTrace`
   * the engram reports to (as `engram serve` does) to include store and source timings.
   */
  metrics?: ServerMetrics;
  /** Where the built web UI is (default: the package's `dist/ui`); served at `/ui`. */
  uiDirectory?: string;
}

/** A running or ready-to-run HTTP server. */
export interface EngramServer {
  readonly config: ServerConfig;
  /** Starts listening; resolves the bound address (port 0 picks a free one). */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Stops accepting, drains in-flight requests (up to `shutdownTimeoutMs`), then closes engram. */
  close(): Promise<void>;
}

/** Request ids: the caller's `x-request-id` when it is short and plain, else a fresh UUID. */
const requestId = (header: unknown) =>
  typeof header === 'string' && /^[\w.:@/-]{1,128}$/.test(header) ? header : randomUUID();

/** A path that is not valid percent-encoding: 400 in the AMS error shape. */
function badUrl(error: Error, reply: FastifyReply): void {
  // Fastify's message quotes the whole path ("'<path>' is exceeding the max param length"), which
  // may be any length: quoted cut, never whole, as every error quotes a caller's value.
  const message = error.message.replace(
    /^'([\s\S]*)' is /,
    (_, path: string) => `'${truncateText(path)}' is `,
  );
  reply.status(400).send({ detail: truncateText(message, 1_000) });
}

/**
 * Creates the HTTP server: AMS-compatible `/v1` working memory, engram's extensions, health,
 * readiness and metrics. Refuses a non-loopback host while authentication is off.
 */
export function createServer(options: ServerOptions): EngramServer {
  const config = serverConfigSchema.parse(options.config ?? {});
  assertLoopbackHost(config.host, config.auth.mode);
  warmBodyFieldCounter();
  // Errors are logged content-free whoever made the logger (logged-error.ts).
  const logger = (options.logger ?? createServerLogger(config.logLevel)).child(
    {},
    { serializers: { err: loggedError } },
  );
  const { engram } = options;
  const metrics = options.metrics ?? createServerMetrics();
  /** Counts and logs one answered request (the `request` log line). */
  const record = (request: FastifyRequest, reply: FastifyReply): void => {
    // Empty when onRequest did not run (a request Fastify refused before routing it).
    const route = request.routeTemplate || (request.routeOptions?.url ?? 'unmatched');
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    metrics.observe({ method: request.method, route, status }, ms / 1_000);
    if (logger.isLevelEnabled('info')) {
      const caller = request.principal;
      const { method } = request;
      // Not the raw URL: a query may hold a user's words (the working set's `query`).
      const url = loggedUrl(request.url);
      request.log.info(
        caller
          ? { method, url, route, status, ms, tenant: caller.tenantId, subject: caller.subject }
          : { method, url, route, status, ms },
        'request',
      );
    }
  };
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (request) => requestId(request.headers['x-request-id']),
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 2_048 },
    // Fastify answers these before routing, so no hook runs: the request is recorded here.
    frameworkErrors: (error, request, reply) => {
      badUrl(error, reply as FastifyReply);
      record(request as FastifyRequest, reply as FastifyReply);
    },
  });
  const routes = createRouteTable();
  const state: { closing: Promise<void> | undefined } = { closing: undefined };

  app.addHook('onRoute', (route) => {
    routes.add(route.method, route.url);
    applyOperationPermission(route);
  });
  registerOpenApi(app);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', readUtf8Body);
  const authenticate = createAuthenticator(config, engram);
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('routeTemplate', '');
  const anonymous = config.auth.mode === 'disabled';
  const guardHost = anonymous ? createHostGuard(config.allowedHosts) : undefined;
  // The per-request hooks take callbacks, not promises, and skip work they need not do: on a cached
  // GET they are a large share of the server's time (docs/server.md, "HTTP performance").
  app.addHook('onRequest', (request, reply, done) => {
    // Read once: Fastify builds a new routeOptions object on every read.
    const route = request.routeOptions;
    request.routeTemplate = route.url ?? 'unmatched';
    reply.header('x-request-id', request.id);
    try {
      guardHost?.(request.headers);
    } catch (error) {
      return done(error as Error);
    }
    // Unknown paths answer 404/405 alike for everyone: the route table is public anyway.
    if (route.url === undefined) return done();
    const permission = permissionOf(request.method, route.config.permission);
    if (permission === 'public') return done();
    if (anonymous) {
      request.principal = anonymousPrincipal;
      authorize(request, permission);
      return done();
    }
    authenticate(request)
      .then((principal) => {
        request.principal = principal;
        authorize(request, permission);
      })
      .then(() => done(), done);
  });
  // While draining, answered connections close instead of idling until the keep-alive timeout.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (state.closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // Runs for hijacked replies too (MCP), with the status their raw response was given.
  app.addHook('onResponse', (request, reply, done) => {
    record(request, reply);
    done();
  });
  app.setErrorHandler((error, request, reply) => {
    const answer = describeError(error, request.routeOptions.config.errorShape ?? 'ams', {
      bodyLimitBytes: config.bodyLimitBytes,
    });
    if (answer.unexpected) request.log.error({ err: error }, 'request failed');
    if (answer.status === 401) reply.header('www-authenticate', 'Bearer');
    // Refused before its body was all received (over the body limit, a list over its limit): close
    // the connection after answering, so that the client stops sending and the rest is not read.
    if (!request.raw.complete) reply.header('connection', 'close');
    return reply.status(answer.status).send(answer.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const allowed = routes.allowedMethods(request.url);
    if (allowed.length === 0) return reply.status(404).send({ detail: 'Not Found' });
    return reply.status(405).header('allow', allowed.join(', ')).send({ detail: 'Method Not Allowed' });
  });

  registerSystemRoutes(app, {
    engram,
    registry: metrics.registry,
    isClosing: () => state.closing !== undefined,
  });
  registerApiReferenceRoutes(app);
  registerWorkingMemoryRoutes(app, engram);
  registerLongTermMemoryRoutes(app, engram);
  registerMemoryPromptRoutes(app, engram);
  registerSessionExtensionRoutes(app, engram);
  registerExtensionRoutes(app, engram);
  registerMcpRoutes(app, engram, anonymous ? config.allowedHosts : undefined);
  registerTaskRoutes(app, engram);
  registerSummaryViewRoutes(app, engram);
  registerChatRoutes(app, engram);
  registerSessionEndRoutes(app, engram);
  registerWhoamiRoutes(app, { authentication: !anonymous });
  registerUiRoutes(app, options.uiDirectory === undefined ? {} : { directory: options.uiDirectory });

  return {
    config,
    async listen() {
      await app.listen({ host: config.host, port: config.port });
      const address = app.server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      if (config.auth.mode === 'disabled') {
        logger.warn(
          { host: address.address, port: address.port },
          `AUTHENTICATION IS OFF: anyone who can reach ${host}:${address.port} can read and write every session`,
        );
      }
      return { host: address.address, port: address.port, url: `http://${host}:${address.port}` };
    },
    close() {
      state.closing ??= (async () => {
        const force = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
        try {
          await app.close();
        } finally {
          clearTimeout(force);
          await engram.close();
          // Asynchronous log writes may still be buffered: send them before the process may exit.
          await new Promise<void>((resolve) => logger.flush(() => resolve()));
        }
      })();
      return state.closing;
    },
  };
}
