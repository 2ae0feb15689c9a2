import { join } from 'node:path';
import type { Logger } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createEngram, type Engram } from '../../src/engram.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import type { ServerConfigInput } from '../../src/server/server-config.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/** A real server on a free loopback port over a temporary SQLite file, and fetch helpers. */
export interface TestServer {
  url: string;
  server: EngramServer;
  /** The engram the server runs on (e.g. to create API keys in its store). */
  engram: Engram;
  /** fetch against the server; a JSON `body` is serialized with `content-type: application/json`. */
  request(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
}

/**
 * Starts the server before the file's tests and closes it (and its engram) after them. `config`
 * may be a function, called when the server starts (after earlier `beforeAll`s, e.g. a JWKS server);
 * `logger`, when given, receives the server's log (its own level applies).
 */
export function useTestServer(
  config: ServerConfigInput | (() => ServerConfigInput) = {},
  logger?: Logger,
): () => TestServer {
  const temporaryDirectory = useTemporaryDirectories('engram-http-');
  let started: TestServer | undefined;
  beforeAll(async () => {
    // Real time, but strictly increasing, so that "newest first" never depends on two writes
    // landing in different milliseconds.
    let last = 0;
    const clock = () => {
      last = Math.max(Date.now(), last + 1);
      return new Date(last);
    };
    const store = await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db'), clock });
    const engram = await createEngram({ store, clock, sweepIntervalMs: 0, defaultSources: false });
    const settings = typeof config === 'function' ? config() : config;
    const server = createServer({
      engram,
      config: { port: 0, logLevel: 'silent', ...settings },
      ...(logger ? { logger } : {}),
    });
    const { url } = await server.listen();
    started = {
      url,
      server,
      engram,
      request(path, init = {}) {
        const body =
          init.body === undefined
            ? undefined
            : typeof init.body === 'string'
              ? init.body
              : JSON.stringify(init.body);
        return fetch(`${url}${path}`, {
          method: init.method ?? 'GET',
          headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
          ...(body === undefined ? {} : { body }),
        });
      },
    };
  });
  afterAll(async () => {
    await started?.server.close();
  });
  return () => {
    if (!started) throw new Error('The test server has not started');
    return started;
  };
}
