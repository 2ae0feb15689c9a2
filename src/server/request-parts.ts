import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Pause, SlicedSchema } from '../engine/parse-in-slices.js';
import { readJsonBody, readJsonBodyInSlices } from './read-json-body.js';
import { validateRequest, validationResult } from './validate-request.js';

/** The query string validated by `schema`; a repeated parameter keeps its last value, as in Starlette. */
export function readQuery<T extends z.ZodType>(request: FastifyRequest, schema: T): z.output<T> {
  const query = Object.entries((request.query ?? {}) as Record<string, unknown>).map(([key, value]) => [
    key,
    Array.isArray(value) ? value.at(-1) : value,
  ]);
  return validateRequest(schema, Object.fromEntries(query), 'query');
}

/** The path parameters validated by `schema`. */
export function readPath<T extends z.ZodType>(request: FastifyRequest, schema: T): z.output<T> {
  return validateRequest(schema, request.params, 'path');
}

/** The JSON body (required) validated by `schema`. */
export function readBody<T extends z.ZodType>(request: FastifyRequest, schema: T): z.output<T> {
  return validateRequest(schema, readJsonBody(request, { required: true }), 'body');
}

/**
 * The JSON body (required) validated by a sliced schema: the same result and errors as readBody,
 * with a pause before each item of the schema's big array (so a long list holds no other request).
 */
export async function readBodyInSlices<T>(
  request: FastifyRequest,
  schema: SlicedSchema<T>,
  pause: Pause,
): Promise<T> {
  const input = await readJsonBodyInSlices(request, schema.key, pause);
  return validationResult(await schema.safeParse(input, pause, { reportInput: true }), input, 'body');
}
