import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ItemOf, Pause, SlicedSchema } from '../engine/parse-in-slices.js';
import {
  type JsonBodySource,
  readJsonBody,
  readJsonBodyInSlices,
  readJsonBodyLazily,
  UnreadableItemError,
} from './read-json-body.js';
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
 * The JSON body (required) validated by a sliced schema, with a pause before each item of its big
 * array (so a long list holds no other request), and each valid item mapped as soon as it is
 * validated (`SlicedSchema.mapItems`); for a long body each item is also parsed from the text just
 * before (`readJsonBodyLazily`): of the three copies of each item (parsed, validated, mapped) only
 * the mapped one outlives its step. The answers are readBody's followed by `mapItem` on each item:
 * any fault (malformed JSON, a structure or validation error) sends the body down the whole-body
 * path (`readJsonBodyInSlices`), which names it exactly; else the first error `mapItem` throws.
 */
export async function readBodyMappingItems<T, K extends string, M>(
  request: JsonBodySource,
  schema: SlicedSchema<T, K>,
  pause: Pause,
  mapItem: (item: ItemOf<T, K>, index: number) => M | Promise<M>,
): Promise<Omit<T, K> & Record<K, M[]>> {
  const lazy = await readJsonBodyLazily(request, schema.key, pause);
  if (lazy) {
    try {
      const result = await schema.mapItems(lazy.input, pause, mapItem, { readItem: lazy.readItem });
      if (result.success) return result.data;
    } catch (error) {
      if (!(error instanceof UnreadableItemError)) throw error;
    }
  }
  const input = await readJsonBodyInSlices(request, schema.key, pause);
  return validationResult(await schema.mapItems(input, pause, mapItem, { reportInput: true }), input, 'body');
}
