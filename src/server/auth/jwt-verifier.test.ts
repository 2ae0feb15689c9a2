import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtSettingsSchema } from './auth-settings.js';
import { createJwtVerifier } from './jwt-verifier.js';
import { AuthUnavailableError } from './unauthorized-error.js';

/** A JWKS endpoint that fails: 500 with an HTML body. */
let broken: Server;
let brokenUrl = '';
beforeAll(async () => {
  broken = createServer((_request, response) => response.writeHead(500).end('<html>oops</html>'));
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/jwks`;
});
afterAll(() => new Promise((resolve) => broken.close(resolve)));

async function token() {
  const { privateKey } = await generateKeyPair('ES256');
  return new SignJWT({ tenant_id: 'acme', role: 'agent' })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer('https://issuer.test')
    .setAudience('engram')
    .setExpirationTime('5m')
    .sign(privateKey);
}

const settings = (jwksUrl: string) =>
  jwtSettingsSchema.parse({ jwksUrl, issuer: 'https://issuer.test', audience: 'engram' });

describe('createJwtVerifier', () => {
  it('answers 503 (not 401) when the key set cannot be fetched or is not a key set', async () => {
    const closedPort = createJwtVerifier(settings('http://127.0.0.1:1/jwks'));
    await expect(closedPort(await token())).rejects.toBeInstanceOf(AuthUnavailableError);
    const failing = createJwtVerifier(settings(brokenUrl));
    const error = await failing(await token()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthUnavailableError);
    expect(error).toMatchObject({ httpStatus: 503, code: 'auth_unavailable' });
  });

  it('has documented defaults', () => {
    expect(settings(brokenUrl)).toMatchObject({
      issuer: ['https://issuer.test'],
      audience: ['engram'],
      tenantClaim: 'tenant_id',
      roleClaim: 'role',
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      clockToleranceSeconds: 30,
    });
  });
});
