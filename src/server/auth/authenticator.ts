import type { FastifyRequest } from 'fastify';
import { createApiKeys } from '../../engine/access/api-keys.js';
import type { Engram } from '../../engram.js';
import type { ServerConfig } from '../server-config.js';
import { createJwtVerifier } from './jwt-verifier.js';
import { anonymousPrincipal, type Principal } from './principal.js';
import { readCredential } from './read-credential.js';
import { UnauthorizedError } from './unauthorized-error.js';

/** Resolves the caller of a request, or rejects with an `unauthorized` EngramError (401). */
export type Authenticator = (request: FastifyRequest) => Promise<Principal>;

/** A compact JWS has three dot-separated parts; engram API keys contain no dot. */
const looksLikeJwt = (token: string) => token.split('.').length === 3;

/**
 * The authenticator for the configured auth mode. `disabled` (allowed on loopback only) makes every
 * caller the admin of the `default` tenant. `enabled` reads the bearer token (or `X-API-Key`): a
 * JWT goes to the JWT verifier when one is configured, anything else is looked up as an API key.
 */
export function createAuthenticator(config: ServerConfig, engram: Engram): Authenticator {
  const { auth } = config;
  if (auth.mode === 'disabled') return async () => anonymousPrincipal;
  const apiKeys = auth.apiKeys ? createApiKeys(engram.store.documents) : undefined;
  const verifyJwt = auth.jwt ? createJwtVerifier(auth.jwt) : undefined;
  return async (request) => {
    const token = readCredential(request.headers);
    if (verifyJwt && looksLikeJwt(token)) return verifyJwt(token);
    if (!apiKeys) throw new UnauthorizedError('invalid_token');
    const check = await apiKeys.verify(token);
    if (!check.ok)
      throw new UnauthorizedError(check.reason === 'expired' ? 'token_expired' : 'invalid_token');
    const { tenantId, role, id } = check.apiKey;
    return { tenantId, role, subject: `key:${id}` };
  };
}
