import type { FastifyRequest } from 'fastify';
import { EngramError } from '../../core/errors.js';
import type { Role } from '../../core/schemas/role.js';
import { grants, type Permission, routePermission } from '../../engine/access/operation-permissions.js';

export { type Role, roles } from '../../core/schemas/role.js';
export { grants, type Permission, permissionsByRole } from '../../engine/access/operation-permissions.js';

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

/**
 * Gives a route listed in the operation table (operation-permissions.ts) the table's permission, at
 * registration: a route that declares another one is a programming error, caught at start-up.
 */
export function applyOperationPermission(route: {
  method: string | string[];
  url: string;
  config?: { permission?: Permission };
}): void {
  for (const method of [route.method].flat()) {
    const listed = routePermission(method, route.url);
    if (listed === undefined) continue;
    const declared = route.config?.permission;
    if (declared !== undefined && declared !== listed) {
      throw new Error(`${method} ${route.url} declares ${declared}; the operation table says ${listed}`);
    }
    route.config = { ...route.config, permission: listed };
  }
}

/** Throws ForbiddenError unless the request's principal holds `permission`. */
export function authorize(request: FastifyRequest, permission: Permission): void {
  const { role } = request.principal;
  if (!grants(role, permission)) throw new ForbiddenError(role, permission);
}

/** The tenant every store call of this request is scoped to. */
export const tenantOf = (request: FastifyRequest): string => request.principal.tenantId;
