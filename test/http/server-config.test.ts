import { describe, expect, it } from 'vitest';
import { EngramError, ValidationError } from '../../src/core/errors.js';
import { createEngram } from '../../src/engram.js';
import { createServer } from '../../src/server/create-server.js';
import { isLoopbackHost } from '../../src/server/loopback-host.js';
import { resolveServerConfig } from '../../src/server/server-config.js';
import { createMemoryStore } from '../../src/stores/memory/memory-store.js';

const files = (content: Record<string, string>) => (path: string) => {
  const text = content[path];
  if (text === undefined) throw new Error(`ENOENT: ${path}`);
  return text;
};

describe('server config', () => {
  it('has safe defaults', () => {
    expect(resolveServerConfig({}, {})).toEqual({
      host: '127.0.0.1',
      port: 8000,
      databasePath: './data/engram.db',
      logLevel: 'info',
      bodyLimitBytes: 1_048_576,
      shutdownTimeoutMs: 10_000,
      storeThread: 'worker',
      storePoolSize: 10,
      storeHnswEfConstruction: 200,
      storeHnswEfSearch: 300,
      jobLeaseMs: 60_000,
      auth: { mode: 'disabled', apiKeys: true },
      allowedHosts: [],
    });
  });

  it('takes a PostgreSQL store from --store or ENGRAM_STORE_URL, and refuses other URLs', () => {
    const url = 'postgres://engram@db.internal:5432/engram?schema=prod';
    expect(resolveServerConfig({}, { ENGRAM_STORE_URL: url, ENGRAM_STORE_POOL_SIZE: '25' })).toMatchObject({
      storeUrl: url,
      storePoolSize: 25,
    });
    expect(resolveServerConfig({ store: 'postgresql://a@b/c' }, { ENGRAM_STORE_URL: url }).storeUrl).toBe(
      'postgresql://a@b/c',
    );
    expect(resolveServerConfig({}, {}).storeUrl).toBeUndefined();
    expect(() => resolveServerConfig({ store: 'mysql://a@b/c' }, {})).toThrow(ValidationError);
    expect(() => resolveServerConfig({}, { ENGRAM_STORE_POOL_SIZE: '0' })).toThrow(ValidationError);
    expect(resolveServerConfig({}, { ENGRAM_STORE_HNSW_EF_CONSTRUCTION: '64' }).storeHnswEfConstruction).toBe(
      64,
    );
    expect(() => resolveServerConfig({}, { ENGRAM_STORE_HNSW_EF_CONSTRUCTION: '16' })).toThrow(
      ValidationError,
    );
    expect(resolveServerConfig({}, { ENGRAM_STORE_HNSW_EF_SEARCH: '100' }).storeHnswEfSearch).toBe(100);
    expect(() => resolveServerConfig({}, { ENGRAM_STORE_HNSW_EF_SEARCH: '1001' })).toThrow(ValidationError);
  });

  it('runs the SQLite store in a thread of its own unless ENGRAM_STORE_THREAD says main', () => {
    expect(resolveServerConfig({}, {}).storeThread).toBe('worker');
    expect(resolveServerConfig({}, { ENGRAM_STORE_THREAD: 'main' }).storeThread).toBe('main');
    expect(() => resolveServerConfig({}, { ENGRAM_STORE_THREAD: 'fork' })).toThrow(ValidationError);
  });

  it('takes flags over environment variables over the config file', () => {
    const readFile = files({
      '/etc/engram.json': '{"port": 7000, "logLevel": "debug", "databasePath": "/file.db"}',
    });
    const fromFile = resolveServerConfig({ config: '/etc/engram.json' }, {}, readFile);
    expect(fromFile).toMatchObject({ port: 7000, logLevel: 'debug', databasePath: '/file.db' });
    const environment = {
      ENGRAM_PORT: '7100',
      ENGRAM_DATABASE_PATH: '/env.db',
      ENGRAM_CONFIG: '/etc/engram.json',
    };
    expect(resolveServerConfig({}, environment, readFile)).toMatchObject({
      port: 7100,
      logLevel: 'debug',
      databasePath: '/env.db',
    });
    expect(resolveServerConfig({ port: '7200', db: '/flag.db' }, environment, readFile)).toMatchObject({
      port: 7200,
      databasePath: '/flag.db',
      logLevel: 'debug',
    });
  });

  it('rejects malformed values, unknown file keys and unreadable files', () => {
    expect(() => resolveServerConfig({ port: 'eighty' }, {})).toThrow(ValidationError);
    expect(() => resolveServerConfig({}, { ENGRAM_PORT: '70000' })).toThrow(ValidationError);
    expect(() => resolveServerConfig({}, { ENGRAM_LOG_LEVEL: 'loud' })).toThrow(ValidationError);
    const readFile = files({ '/typo.json': '{"prot": 1}', '/list.json': '[]', '/broken.json': '{' });
    for (const config of ['/typo.json', '/list.json', '/broken.json', '/missing.json']) {
      expect(() => resolveServerConfig({ config }, {}, readFile)).toThrow(ValidationError);
    }
  });
});

describe('loopback only while authentication is off', () => {
  it('recognizes loopback hosts', () => {
    for (const host of [
      '127.0.0.1',
      '127.4.5.6',
      'localhost',
      'LOCALHOST',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1', '']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it('refuses to create a server on any other host, with a clear error', async () => {
    const engram = await createEngram({
      store: createMemoryStore(),
      sweepIntervalMs: 0,
      defaultSources: false,
    });
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      let thrown: unknown;
      try {
        createServer({ engram, config: { host } });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(EngramError);
      expect(thrown).toMatchObject({
        code: 'insecure_bind',
        message: expect.stringMatching(/authentication/),
      });
    }
    await engram.close();
  });
});
