import type { z } from 'zod';
import {
  type RequestLocation,
  RequestValidationError,
  type ValidationDetail,
} from './request-validation-error.js';

/** A pydantic error type and message that a custom zod issue carries in `params.pydantic`. */
export interface PydanticIssue {
  type: string;
  msg: string;
  ctx?: Record<string, unknown>;
}

/** Python's way of listing choices: `'a', 'b' or 'c'`. */
export function pythonChoices(values: readonly unknown[]): string {
  const quoted = values.map((value) => (typeof value === 'string' ? `'${value}'` : String(value)));
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

const typeNames: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  array: ['list_type', 'Input should be a valid list'],
  object: ['dict_type', 'Input should be a valid dictionary'],
  record: ['dict_type', 'Input should be a valid dictionary'],
};

function bound(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, limit: number): PydanticIssue {
  const small = issue.code === 'too_small';
  if (issue.origin === 'string') {
    const key = small ? 'min_length' : 'max_length';
    const words = small ? 'at least' : 'at most';
    return {
      type: small ? 'string_too_short' : 'string_too_long',
      msg: `String should have ${words} ${limit} character${limit === 1 ? '' : 's'}`,
      ctx: { [key]: limit },
    };
  }
  if (issue.origin === 'array') {
    const words = small ? 'at least' : 'at most';
    return {
      type: small ? 'too_short' : 'too_long',
      msg: `List should have ${words} ${limit} item${limit === 1 ? '' : 's'} after validation`,
      ctx: { field_type: 'List', [small ? 'min_length' : 'max_length']: limit },
    };
  }
  const inclusive = issue.inclusive !== false;
  const [type, words, key] = small
    ? inclusive
      ? ['greater_than_equal', 'greater than or equal to', 'ge']
      : ['greater_than', 'greater than', 'gt']
    : inclusive
      ? ['less_than_equal', 'less than or equal to', 'le']
      : ['less_than', 'less than', 'lt'];
  return { type, msg: `Input should be ${words} ${limit}`, ctx: { [key]: limit } };
}

/** Translates one zod issue into pydantic's vocabulary (type, msg, ctx). */
function toPydantic(issue: z.core.$ZodIssue, atRoot: boolean): PydanticIssue {
  if (issue.code !== 'custom' && issue.input === undefined) return { type: 'missing', msg: 'Field required' };
  switch (issue.code) {
    case 'custom':
      return (
        (issue.params?.pydantic as PydanticIssue | undefined) ?? {
          type: 'value_error',
          msg: `Value error, ${issue.message}`,
          ctx: { error: {} },
        }
      );
    case 'invalid_type': {
      if (atRoot && issue.expected === 'object') {
        return {
          type: 'model_attributes_type',
          msg: 'Input should be a valid dictionary or object to extract fields from',
        };
      }
      const [type, msg] = typeNames[issue.expected] ?? ['value_error', issue.message];
      return { type, msg };
    }
    case 'too_big':
      return bound(issue, Number(issue.maximum));
    case 'too_small':
      return bound(issue, Number(issue.minimum));
    case 'invalid_value': {
      const expected = pythonChoices(issue.values);
      return { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    default:
      return { type: 'value_error', msg: `Value error, ${issue.message}`, ctx: { error: {} } };
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * Parses `input` with `schema`; on failure throws a RequestValidationError whose details are
 * FastAPI-shaped (`loc` starts with `location`, `input` is the offending value, or the object
 * missing a field).
 */
export function validateRequest<T extends z.ZodType>(
  schema: T,
  input: unknown,
  location: RequestLocation,
): z.output<T> {
  return validationResult(schema.safeParse(input, { reportInput: true }), input, location);
}

/**
 * The data of a parse result (made with `reportInput: true`), or the RequestValidationError that
 * validateRequest throws for it.
 */
export function validationResult<T>(
  result: z.ZodSafeParseResult<T>,
  input: unknown,
  location: RequestLocation,
): T {
  if (result.success) return result.data;
  const details = result.error.issues.map((issue): ValidationDetail => {
    const path = issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part));
    const pydantic = toPydantic(issue, path.length === 0);
    const offending = pydantic.type === 'missing' ? valueAt(input, path.slice(0, -1)) : valueAt(input, path);
    return {
      type: pydantic.type,
      loc: [location, ...path],
      msg: pydantic.msg,
      input: offending ?? null,
      ...(pydantic.ctx ? { ctx: pydantic.ctx } : {}),
    };
  });
  throw new RequestValidationError(details);
}
