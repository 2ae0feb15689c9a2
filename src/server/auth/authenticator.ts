import type { FastifyRequest } from 'fastify';
import type { Engram } from '../../engram.js';
import type { ServerConfig } from '../server-config.js';
import { anonymousPrincipal, type Principal } from './principal.js';

/** Resolves the caller of a request, or rejects with an `unauthorized` EngramError (401). */
export type Authenticator = (request: FastifyRequest) => Promise<Principal>;

/**
 * The authenticator for the configured auth mode. `disabled` (allowed on loopback only) makes every
 * caller the admin of the `default` tenant.
 */
export function createAuthenticator(config: ServerConfig, _engram: Engram): Authenticator {
  switch (config.auth.mode) {
    case 'disabled':
      return async () => anonymousPrincipal;
  }
}
