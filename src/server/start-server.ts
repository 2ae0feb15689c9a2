import type { Writable } from 'node:stream';
import { redactedUrl } from '../core/redacted-url.js';
import { createEngram } from '../engram.js';
import { instrumentStore } from '../stores/instrument-store.js';
import { createServer, type EngramServer } from './create-server.js';
import { embedderOptionOf } from './embedder-option.js';
import { flushLogSync, installFatalHandlers } from './fatal-handlers.js';
import { assertLoopbackHost } from './loopback-host.js';
import { openConfiguredStore } from './open-configured-store.js';
import { resolveServerConfig, type ServerConfig, type ServerFlags } from './server-config.js';
import { createServerLogger } from './server-logger.js';
import { createServerMetrics } from './server-metrics.js';
import { writePathOptionsOf } from './write-path-options.js';

/** What start prints about authentication: a loud warning when it is off. */
function authNotice(config: ServerConfig): string {
  const { auth } = config;
  if (auth.mode === 'disabled') {
    return 'WARNING: authentication is off. Anyone who can reach this address can read and write every session.\n';
  }
  const accepted = [
    ...(auth.apiKeys ? ['API keys (engram keys create)'] : []),
    ...(auth.jwt ? [`JWTs from ${auth.jwt.issuer.join(', ')}`] : []),
  ];
  return `authentication: ${accepted.join(' and ')}\n`;
}

/**
 * `engram serve`: resolves the settings (flags > environment > config file), opens engram on the
 * SQLite file or the PostgreSQL database (`--store`), listens, warns when authentication is off,
 * and shuts down gracefully on SIGTERM, SIGINT or SIGHUP (a second signal exits at once). Logs are
 * JSON lines on stdout; signals, uncaught exceptions and unhandled rejections leave a line there
 * before the process ends (fatal-handlers.ts).
 */
export async function startServer(options: {
  flags: ServerFlags;
  environment: Record<string, string | undefined>;
  stderr: Writable;
}): Promise<EngramServer> {
  const config = resolveServerConfig(options.flags, options.environment);
  assertLoopbackHost(config.host, config.auth.mode);
  const logger = createServerLogger(config.logLevel);
  // Store calls and memory sources report to the registry that /metrics serves.
  const metrics = createServerMetrics();
  const opened = await openConfiguredStore(
    config,
    (message) => logger.warn(message),
    // Every request would fail with 503 from now on: exit, so that a supervisor restarts the server.
    (error) => {
      logger.fatal({ err: error }, 'the store thread stopped: exiting');
      flushLogSync(logger);
      process.exit(1);
    },
  );
  const store = instrumentStore(opened.store, metrics.observeStore);
  const engram = await createEngram({
    store,
    ...embedderOptionOf(config),
    jobs: { leaseMs: config.jobLeaseMs },
    onTrace: (trace) => metrics.observeTrace(trace),
    // The job runner runs here: summaries, promotion and extraction happen in this process.
    ...writePathOptionsOf(config, (message) => logger.info(message)),
    onBackgroundError: (error) => logger.error({ err: error }, 'background work failed'),
  });
  const server = createServer({ engram, config, logger, metrics });
  const { url } = await server.listen();
  const model = [
    config.llm ? `LLM ${config.llm.model} at ${redactedUrl(config.llm.baseUrl)}` : 'no LLM',
    config.embeddings
      ? `embeddings ${config.embeddings.model} at ${redactedUrl(config.embeddings.baseUrl)}`
      : 'offline static embeddings',
  ].join(', ');
  options.stderr.write(`engram listening on ${url} (${opened.description}, ${model})\n${authNotice(config)}`);
  const shutdown = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    server.close().then(
      () => logger.info('engram stopped'),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
  };
  installFatalHandlers(logger, shutdown);
  return server;
}
