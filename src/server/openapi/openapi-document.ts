import type { DocumentedRoute } from './documented-route.js';
import { toOpenApiPath } from './documented-route.js';
import { amsErrorSchema, amsValidationErrorSchema, engramErrorSchema } from './error-body-schemas.js';
import { jsonSchemaOf } from './json-schema-of.js';
import { operationOf } from './operation-of.js';

/** The `info` of the document. */
export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

/** An OpenAPI 3.1 document (only the parts engram writes are typed). */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: OpenApiInfo;
  jsonSchemaDialect: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: Record<string, Record<string, unknown>>;
  security: Record<string, string[]>[];
  tags: { name: string }[];
}

/**
 * Builds the OpenAPI 3.1 document of `routes`: paths in `{param}` form, one operation per method,
 * the error bodies and the two credential schemes as components, tags collected from the routes.
 */
export function buildOpenApiDocument(routes: readonly DocumentedRoute[], info: OpenApiInfo): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const route of routes) {
    const { path } = toOpenApiPath(route.url);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operationOf(route);
    for (const tag of route.docs?.tags ?? []) tags.add(tag);
  }
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      schemas: {
        AmsError: jsonSchemaOf(amsErrorSchema, 'output'),
        AmsValidationError: jsonSchemaOf(amsValidationErrorSchema, 'output'),
        EngramError: jsonSchemaOf(engramErrorSchema, 'output'),
      },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An engram API key or a JWT' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    tags: [...tags].sort().map((name) => ({ name })),
  };
}
