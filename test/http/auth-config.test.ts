import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EngramError, ValidationError } from '../../src/core/errors.js';
import { createEngram } from '../../src/engram.js';
import { createServer } from '../../src/server/create-server.js';
import { assertLoopbackHost } from '../../src/server/loopback-host.js';
import { resolveServerConfig } from '../../src/server/server-config.js';
import { createMemoryStore } from '../../src/stores/memory/memory-store.js';

const files = (content: Record<string, string>) => (path: string) => {
  const text = content[path];
  if (text === undefined) throw new Error(`ENOENT: ${path}`);
  return text;
};

const jwt = { jwksUrl: 'https://issuer.test/jwks', issuer: 'https://issuer.test', audience: 'engram' };

describe('auth settings', () => {
  it('layers flag over environment over file, key by key, also inside jwt', () => {
    const readFile = files({
      '/auth.json': JSON.stringify({
        auth: { mode: 'enabled', apiKeys: false, jwt: { ...jwt, roleClaim: 'roles' } },
      }),
    });
    const fromFile = resolveServerConfig({ config: '/auth.json' }, {}, readFile);
    expect(fromFile.auth).toEqual({
      mode: 'enabled',
      apiKeys: false,
      jwt: {
        ...jwt,
        issuer: [jwt.issuer],
        audience: [jwt.audience],
        tenantClaim: 'tenant_id',
        roleClaim: 'roles',
        algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
        clockToleranceSeconds: 30,
      },
    });
    const environment = {
      ENGRAM_CONFIG: '/auth.json',
      ENGRAM_AUTH_API_KEYS: 'true',
      ENGRAM_JWT_AUDIENCE: 'a, b',
      ENGRAM_JWT_ALGORITHMS: 'ES256,EdDSA',
    };
    const layered = resolveServerConfig({}, environment, readFile);
    expect(layered.auth).toMatchObject({
      mode: 'enabled',
      apiKeys: true,
      jwt: { roleClaim: 'roles', audience: ['a', 'b'], algorithms: ['ES256', 'EdDSA'], issuer: [jwt.issuer] },
    });
    expect(resolveServerConfig({ auth: 'disabled' }, environment, readFile).auth.mode).toBe('disabled');
    expect(resolveServerConfig({}, { ENGRAM_AUTH_MODE: 'enabled' }).auth).toEqual({
      mode: 'enabled',
      apiKeys: true,
    });
  });

  it('rejects incomplete or unsafe settings', () => {
    const cases: Record<string, string | undefined>[] = [
      { ENGRAM_AUTH_MODE: 'on' },
      { ENGRAM_AUTH_MODE: 'enabled', ENGRAM_AUTH_API_KEYS: 'false' }, // accepts no credential
      { ENGRAM_JWT_JWKS_URL: 'https://issuer.test/jwks' }, // no issuer or audience
      { ENGRAM_JWT_JWKS_URL: 'ftp://x/jwks', ENGRAM_JWT_ISSUER: 'i', ENGRAM_JWT_AUDIENCE: 'a' },
      {
        ENGRAM_JWT_JWKS_URL: 'https://x/jwks',
        ENGRAM_JWT_ISSUER: 'i',
        ENGRAM_JWT_AUDIENCE: 'a',
        ENGRAM_JWT_ALGORITHMS: 'HS256',
      },
      {
        ENGRAM_JWT_JWKS_URL: 'https://x/jwks',
        ENGRAM_JWT_ISSUER: 'i',
        ENGRAM_JWT_AUDIENCE: 'a',
        ENGRAM_JWT_DEFAULT_ROLE: 'root',
      },
    ];
    for (const environment of cases) {
      expect(() => resolveServerConfig({}, environment), JSON.stringify(environment)).toThrow(
        ValidationError,
      );
    }
    expect(() => resolveServerConfig({ auth: 'maybe' }, {})).toThrow(ValidationError);
    const readFile = files({
      '/typo.json': '{"auth": {"mode": "enabled", "apiKey": true}}',
      '/text.json': '{"auth": "on"}',
    });
    for (const config of ['/typo.json', '/text.json']) {
      expect(() => resolveServerConfig({ config }, {}, readFile)).toThrow(ValidationError);
    }
  });
});

/** A logger whose lines land in `lines`. */
function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: pino({ level: 'warn' }, stream) };
}

describe('binding and authentication', () => {
  it('refuses a non-loopback host unless authentication is enabled', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
      expect(() => assertLoopbackHost(host, 'disabled')).toThrow(/authentication disabled/);
      expect(() => assertLoopbackHost(host, 'enabled')).not.toThrow();
    }
    const engram = await createEngram({
      store: createMemoryStore(),
      sweepIntervalMs: 0,
      defaultSources: false,
    });
    let thrown: unknown;
    try {
      createServer({ engram, config: { host: '0.0.0.0' } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EngramError);
    expect(thrown).toMatchObject({ code: 'insecure_bind' });
    expect(() =>
      createServer({ engram, config: { host: '0.0.0.0', auth: { mode: 'enabled' } } }),
    ).not.toThrow();
    await engram.close();
  });

  it('warns loudly at start only while authentication is off', async () => {
    for (const mode of ['disabled', 'enabled'] as const) {
      const { lines, logger } = capturingLogger();
      const engram = await createEngram({
        store: createMemoryStore(),
        sweepIntervalMs: 0,
        defaultSources: false,
      });
      const server = createServer({ engram, logger, config: { port: 0, auth: { mode } } });
      await server.listen();
      await server.close();
      const warned = lines.some((line) => line.includes('AUTHENTICATION IS OFF'));
      expect(warned, mode).toBe(mode === 'disabled');
    }
  });
});
