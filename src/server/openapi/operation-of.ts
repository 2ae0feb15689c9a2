import type { ErrorShape } from '../describe-error.js';
import type { RouteDocs } from '../route-docs.js';
import { type DocumentedRoute, operationIdOf, toOpenApiPath } from './documented-route.js';
import { type JsonSchema, jsonSchemaOf } from './json-schema-of.js';

type Parameter = {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
  description?: string;
};
type Response = {
  description: string;
  content?: Record<string, { schema: JsonSchema }>;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
};

const errorSchemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Response headers as OpenAPI describes them (every one a string). */
const headersOf = (headers: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
  );

/** An error response in the route's shape. */
function errorResponse(shape: ErrorShape, description: string, validation = false): Response {
  const name = shape === 'engram' ? 'EngramError' : validation ? 'AmsValidationError' : 'AmsError';
  return { description, content: { 'application/json': { schema: errorSchemaRef(name) } } };
}

/** Path and query parameters from the docs' object schemas; every path parameter is listed. */
function parametersOf(docs: RouteDocs | undefined, pathNames: string[]): Parameter[] {
  const parameters: Parameter[] = [];
  for (const [location, schema] of [
    ['path', docs?.params],
    ['query', docs?.query],
  ] as const) {
    if (!schema) continue;
    const json = jsonSchemaOf(schema, 'input');
    const required = new Set((json.required as string[] | undefined) ?? []);
    const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, property] of Object.entries(properties)) {
      parameters.push({
        name,
        in: location,
        required: location === 'path' || required.has(name),
        schema: property,
      });
    }
  }
  for (const name of pathNames) {
    if (parameters.some((parameter) => parameter.in === 'path' && parameter.name === name)) continue;
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  for (const [name, description] of Object.entries(docs?.headers ?? {})) {
    parameters.push({ name, in: 'header', required: false, schema: { type: 'string' }, description });
  }
  return parameters;
}

function responsesOf(
  route: DocumentedRoute,
  docs: RouteDocs,
  pathParameters: number,
): Record<string, Response> {
  const shape = route.errorShape;
  const mediaType = docs.responseMediaType ?? 'application/json';
  const responses: Record<string, Response> = {
    [String(docs.status ?? 200)]: {
      description: 'Success',
      ...(docs.response
        ? { content: { [mediaType]: { schema: jsonSchemaOf(docs.response, 'output') } } }
        : {}),
      ...(docs.responseHeaders ? { headers: headersOf(docs.responseHeaders) } : {}),
    },
  };
  for (const [status, other] of Object.entries(docs.otherResponses ?? {})) {
    responses[status] = {
      description: other.description,
      content: { [mediaType]: { schema: jsonSchemaOf(other.response, 'output') } },
      ...(other.headers ? { headers: headersOf(other.headers) } : {}),
    };
  }
  if (docs.params || docs.query || docs.body) {
    responses[shape === 'ams' ? '422' : '400'] = errorResponse(shape, 'Invalid request', true);
  }
  if (route.permission !== 'public') {
    responses['401'] = errorResponse(shape, 'No valid credential');
    responses['403'] = errorResponse(shape, `The credential's role does not grant ${route.permission}`);
  }
  // What every route of a kind may answer, so a generated client expects it: an id in the path
  // that names nothing (in the caller's tenant), and a body over the body limit.
  if (pathParameters > 0) responses['404'] = errorResponse(shape, 'What the path names does not exist');
  if (docs.body) responses['413'] = errorResponse(shape, 'The body is larger than bodyLimitBytes');
  for (const [status, description] of Object.entries(docs.errors ?? {})) {
    responses[status] = errorResponse(shape, description);
  }
  responses['500'] = errorResponse(shape, 'Unexpected server error');
  return responses;
}

/** The OpenAPI operation of one route; a route without docs is marked `x-engram-undocumented`. */
export function operationOf(route: DocumentedRoute): Record<string, unknown> {
  const { path, names } = toOpenApiPath(route.url);
  const security = route.permission === 'public' ? [] : [{ bearerAuth: [] }, { apiKeyHeader: [] }];
  const base = {
    operationId: operationIdOf(route.method, path),
    security,
    'x-engram-permission': route.permission,
  };
  const { docs } = route;
  if (!docs) {
    return {
      ...base,
      summary: 'Undocumented',
      parameters: parametersOf(undefined, names),
      responses: { default: { description: 'Undocumented' } },
      'x-engram-undocumented': true,
    };
  }
  const body = docs.body ? jsonSchemaOf(docs.body, 'input') : undefined;
  return {
    ...base,
    summary: docs.summary,
    ...(docs.description ? { description: docs.description } : {}),
    tags: docs.tags ?? [],
    parameters: parametersOf(docs, names),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries([
              ...(docs.bodyMediaTypes ?? ['application/json']).map((type) => [type, { schema: body }]),
              ...(docs.textBodyMediaTypes ?? []).map((type) => [type, { schema: { type: 'string' } }]),
            ]),
          },
        }
      : {}),
    responses: responsesOf(route, docs, names.length),
    ...(docs.extension ? { 'x-engram-extension': true } : {}),
  };
}
