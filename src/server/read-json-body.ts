import type { FastifyRequest } from 'fastify';
import { RequestValidationError, type ValidationDetail } from './request-validation-error.js';

/** Deepest nesting of arrays and objects accepted in a body (deeper JSON could exhaust the stack later). */
export const MAX_JSON_DEPTH = 64;

const fail = (detail: Omit<ValidationDetail, 'loc'> & { loc?: ValidationDetail['loc'] }): never => {
  const { type, loc = ['body'], msg, input, ctx } = detail;
  throw new RequestValidationError([{ type, loc, msg, input, ...(ctx ? { ctx } : {}) }]);
};

/** JSON media types as FastAPI reads them: no header, `application/json` or `application/*+json`. */
export function isJsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return true;
  const mediaType = header.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || /^application\/[^/]+\+json$/.test(mediaType);
}

/** Rejects `__proto__` keys and nesting deeper than MAX_JSON_DEPTH, walking without recursion. */
function checkStructure(root: unknown): void {
  const stack: [unknown, number][] = [[root, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [value, depth] = entry;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      fail({
        type: 'value_error',
        msg: `Value error, JSON is nested deeper than ${MAX_JSON_DEPTH} levels`,
        input: {},
        ctx: { error: {} },
      });
    }
    if (Object.hasOwn(value, '__proto__')) {
      fail({
        type: 'value_error',
        msg: 'Value error, JSON keys named __proto__ are not allowed',
        input: {},
        ctx: { error: {} },
      });
    }
    for (const child of Object.values(value)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}

/**
 * The request body parsed as JSON, with FastAPI's errors: absent → `missing` (when required),
 * a non-JSON content type → `model_attributes_type`, malformed JSON → `json_invalid` with the
 * character offset in `loc`. Returns undefined for an absent optional body.
 */
export function readJsonBody(request: FastifyRequest, options: { required: boolean }): unknown {
  const raw = typeof request.body === 'string' ? request.body : undefined;
  if (raw === undefined || raw.length === 0) {
    if (options.required) fail({ type: 'missing', msg: 'Field required', input: null });
    return undefined;
  }
  if (!isJsonMediaType(request.headers['content-type'])) {
    fail({
      type: 'model_attributes_type',
      msg: 'Input should be a valid dictionary or object to extract fields from',
      input: raw.length > 1_000 ? `${raw.slice(0, 1_000)}…` : raw,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    const message = (error as Error).message;
    const position = Number(/at position (\d+)/.exec(message)?.[1] ?? raw.length);
    fail({
      type: 'json_invalid',
      loc: ['body', position],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: message },
    });
  }
  checkStructure(parsed);
  return parsed;
}
