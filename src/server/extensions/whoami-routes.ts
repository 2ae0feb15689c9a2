import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { permissionsByRole, roles } from '../auth/principal.js';
import { extensionRoute } from './extension-route.js';

export const whoamiBodySchema = z.object({
  tenant_id: z.string(),
  role: z.enum(roles),
  subject: z.string(),
  /** What the role grants (`read`, `write`, `admin`, `inspect`): a UI hides what would be refused. */
  permissions: z.array(z.string()),
  /** False while authentication is off (loopback only; every caller is the default tenant's admin). */
  authentication: z.boolean(),
});

/** `GET /v1/whoami`: the caller's tenant and role, so a client can check a key and show only what it may do. */
export function registerWhoamiRoutes(app: FastifyInstance, options: { authentication: boolean }): void {
  app.get(
    '/v1/whoami',
    {
      config: extensionRoute({
        summary: 'The caller: tenant, role and the permissions it grants',
        tags: ['auth'],
        response: whoamiBodySchema,
      }),
    },
    async (request) => {
      const { tenantId, role, subject } = request.principal;
      return {
        tenant_id: tenantId,
        role,
        subject,
        permissions: permissionsByRole[role].filter((permission) => permission !== 'public'),
        authentication: options.authentication,
      };
    },
  );
}
