import type { FastifyRequest } from 'fastify';
import type { Pause } from '../engine/parse-in-slices.js';
import { parseJsonInSlices, splitJsonArray } from './parse-json-in-slices.js';
import { RequestValidationError, type ValidationDetail } from './request-validation-error.js';

/** Where a body is read from: a request, or its parts handed to another thread. */
export type JsonBodySource = Pick<FastifyRequest, 'body' | 'headers'>;

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
function checkStructure(root: unknown, rootDepth = 0): void {
  const stack: [unknown, number][] = [[root, rootDepth]];
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

/** The body's text, or undefined for an absent optional body; FastAPI's errors for absent or non-JSON. */
function bodyText(request: JsonBodySource, options: { required: boolean }): string | undefined {
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
  return raw;
}

/** `json_invalid` with the character offset in `loc`, from a JSON.parse failure. */
function invalidJson(error: unknown, raw: string): never {
  const message = (error as Error).message;
  const position = Number(/at position (\d+)/.exec(message)?.[1] ?? raw.length);
  return fail({
    type: 'json_invalid',
    loc: ['body', position],
    msg: 'JSON decode error',
    input: {},
    ctx: { error: message },
  });
}

/**
 * The request body parsed as JSON, with FastAPI's errors: absent → `missing` (when required),
 * a non-JSON content type → `model_attributes_type`, malformed JSON → `json_invalid` with the
 * character offset in `loc`. Returns undefined for an absent optional body.
 */
export function readJsonBody(request: JsonBodySource, options: { required: boolean }): unknown {
  const raw = bodyText(request, options);
  return raw === undefined ? undefined : parseWhole(raw);
}

/** The text parsed in one step, its structure checked. */
function parseWhole(raw: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    invalidJson(error, raw);
  }
  checkStructure(parsed);
  return parsed;
}

/** Bodies shorter than this are parsed in one step (a few milliseconds at most). */
export const SLICED_JSON_CHARS = 512 * 1024;

/**
 * `readJsonBody` (required) for a body whose top-level array `key` may be long (a PUT's
 * `messages`): past SLICED_JSON_CHARS the text is parsed item by item (`parseJsonInSlices`) and
 * each item's structure checked on its own, pausing between slices. The result is readJsonBody's,
 * and so is the error of a body with one fault; of a body with several structural faults
 * (`__proto__`, nesting), it may name another one first. A 6 MB body of 100,000 messages was one
 * 20–200 ms step.
 */
export async function readJsonBodyInSlices(
  request: JsonBodySource,
  key: string,
  pause: Pause,
): Promise<unknown> {
  const raw = bodyText(request, { required: true }) as string;
  if (raw.length < SLICED_JSON_CHARS) return parseWhole(raw);
  let parsed: unknown;
  try {
    parsed = await parseJsonInSlices(raw, key, pause);
  } catch (error) {
    invalidJson(error, raw);
  }
  const items = (parsed as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(items) || items.length === 0) {
    checkStructure(parsed);
    return parsed;
  }
  // The envelope with the array emptied, then each item as if it sat two levels down.
  (parsed as Record<string, unknown>)[key] = [];
  checkStructure(parsed);
  for (const [index, item] of items.entries()) {
    if (index % 256 === 0) await pause();
    checkStructure(item, 2);
  }
  (parsed as Record<string, unknown>)[key] = items;
  return parsed;
}

/** An item of a lazily read body that does not parse or fails the structure check. */
export class UnreadableItemError extends Error {}

/**
 * A long body (past SLICED_JSON_CHARS) whose items of the array `key` are read one at a time: the
 * top-level object, parsed and checked, with `key` holding each item's index, and `readItem`
 * to parse one and check its structure (throwing UnreadableItemError). Parsed one by one and
 * dropped once used, the 100,000 parsed messages of a PUT never all exist at once. Null for a
 * shorter body, and whenever the body is not so shaped or its top-level object fails a check: the
 * caller then reads the whole body (`readJsonBodyInSlices`), whose errors are exact. Only a body
 * that reads and validates without fault should be taken from here.
 */
export async function readJsonBodyLazily(
  request: JsonBodySource,
  key: string,
  pause: Pause,
): Promise<{ input: Record<string, unknown>; readItem: (item: unknown) => unknown } | null> {
  const raw = bodyText(request, { required: true }) as string;
  if (raw.length < SLICED_JSON_CHARS) return null;
  const split = await splitJsonArray(raw, key, pause);
  if (split === null) return null;
  try {
    checkStructure(split.envelope);
  } catch {
    return null;
  }
  const { spans } = split;
  // The array holds each item's index, so that its length is checked as the list's.
  split.envelope[key] = Array.from({ length: spans.length / 2 }, (_, index) => index);
  const readItem = (item: unknown) => {
    const index = item as number;
    const start = spans[2 * index];
    const end = spans[2 * index + 1];
    try {
      const parsed: unknown = JSON.parse(raw.slice(start, end));
      checkStructure(parsed, 2);
      return parsed;
    } catch {
      throw new UnreadableItemError();
    }
  };
  return { input: split.envelope, readItem };
}
