import { z } from 'zod';
import type { PydanticIssue } from './validate-request.js';

/** Reports a pydantic-typed problem from inside a zod transform. */
export function reject(context: z.RefinementCtx, pydantic: PydanticIssue): typeof z.NEVER {
  context.addIssue({ code: 'custom', message: pydantic.msg, params: { pydantic } });
  return z.NEVER;
}

/**
 * An integer in pydantic's lax mode: a JSON integer, a float without a fraction, or decimal text
 * (`"4000"`), which is how query strings and the Python client's `context_window_max` arrive.
 */
const laxIntegerTransform = () =>
  z.unknown().transform((value, context): number => {
    if (value === undefined) return reject(context, { type: 'missing', msg: 'Field required' });
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    if (typeof value === 'number' && Number.isFinite(value) && Number.isInteger(value)) {
      return reject(context, {
        type: 'int_parsing_size',
        msg: 'Unable to parse input string as an integer, exceeded maximum size',
      });
    }
    if (typeof value === 'number' && Number.isFinite(value)) {
      return reject(context, {
        type: 'int_from_float',
        msg: 'Input should be a valid integer, got a number with a fractional part',
      });
    }
    if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) {
      const parsed = Number(value);
      if (Number.isSafeInteger(parsed)) return parsed;
      return reject(context, {
        type: 'int_parsing_size',
        msg: 'Unable to parse input string as an integer, exceeded maximum size',
      });
    }
    if (typeof value === 'string') {
      return reject(context, {
        type: 'int_parsing',
        msg: 'Input should be a valid integer, unable to parse string as an integer',
      });
    }
    return reject(context, { type: 'int_type', msg: 'Input should be a valid integer' });
  });

/** The lax integer above; /openapi.json shows it as `integer` (a transform has no JSON Schema). */
export const laxInteger = () => laxIntegerTransform().meta({ type: 'integer' });

const plainObjectTransform = () =>
  z.unknown().transform((value, context): Record<string, unknown> => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
    return reject(context, { type: 'dict_type', msg: 'Input should be a valid dictionary' });
  });

/** A JSON object at top level (not an array, not null); its values are left as they are. */
export const plainObject = () => plainObjectTransform().meta({ type: 'object' });
