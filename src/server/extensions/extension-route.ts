import type { FastifyContextConfig } from 'fastify';
import type { Permission } from '../auth/principal.js';
import type { RouteDocs } from '../route-docs.js';

/**
 * The config of an engram extension route: `{"error": …}` bodies, its OpenAPI entry marked as an
 * extension, and the permission it needs (default: read for GET, write otherwise).
 */
export function extensionRoute(
  docs: Omit<RouteDocs, 'extension'>,
  permission?: Permission,
): FastifyContextConfig {
  return {
    errorShape: 'engram',
    docs: { ...docs, extension: true },
    ...(permission === undefined ? {} : { permission }),
  };
}
