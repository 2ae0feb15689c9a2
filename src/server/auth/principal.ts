import type { FastifyRequest } from 'fastify';
import { EngramError } from '../../core/errors.js';
import type { Role } from '../../core/schemas/role.js';

export { type Role, roles } from '../../core/schemas/role.js';

/**
 * What a route needs: `public` (no credential, e.g. health), `read` and `write` of sessions and
 * memories, `admin` (keys, agents, approving procedures) and `inspect` (context traces).
 */
export type Permission = 'public' | 'read' | 'write' | 'admin' | 'inspect';

/** Which permissions each role grants. Inspector traces are readable only by `inspector` and `admin`. */
export const permissionsByRole: Record<Role, readonly Permission[]> = {
  admin: ['public', 'read', 'write', 'admin', 'inspect'],
  agent: ['public', 'read', 'write'],
  inspector: ['public', 'read', 'inspect'],
};

/** The authenticated caller: every request is scoped to its tenant. */
export interface Principal {
  tenantId: string;
  role: Role;
  /** Who it is, for logs: an API key id, a JWT subject, or `anonymous` when auth is off. */
  subject: string;
}

/** With auth disabled (loopback only) every caller is the admin of the `default` tenant. */
export const anonymousPrincipal: Principal = { tenantId: 'default', role: 'admin', subject: 'anonymous' };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook before any handler runs. */
    principal: Principal;
  }
}

/** A credential that lacks the permission a route needs: 403. */
export class ForbiddenError extends EngramError {
  constructor(role: Role, permission: Permission) {
    super('forbidden', 'forbidden', `The ${role} role does not grant ${permission} access`, {
      details: { role, permission },
    });
    this.name = 'ForbiddenError';
  }
}

/** The permission a route declares, else `read` for GET/HEAD and `write` for everything else. */
export function permissionOf(method: string, declared: Permission | undefined): Permission {
  return declared ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}

/** Throws ForbiddenError unless the request's principal holds `permission`. */
export function authorize(request: FastifyRequest, permission: Permission): void {
  const { role } = request.principal;
  if (!permissionsByRole[role].includes(permission)) throw new ForbiddenError(role, permission);
}

/** The tenant every store call of this request is scoped to. */
export const tenantOf = (request: FastifyRequest): string => request.principal.tenantId;
