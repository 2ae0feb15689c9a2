import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../core/errors.js';
import { overlongBodyArray } from './overlong-body-array.js';
import { isJsonMediaType } from './read-json-body.js';
import { RequestValidationError } from './request-validation-error.js';

/** Strict: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. */
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Fastify content-type parser for every body: the raw bytes decoded as strict UTF-8, so a body
 * that is not UTF-8 is refused (400) before any route sees it, as FastAPI refuses it (its JSON
 * decoder fails with a UnicodeDecodeError, answered 400 "There was an error parsing the body")
 * instead of storing replacement characters. A UTF-8 byte-order mark is dropped, as Python's
 * `json.loads` does. Routes still parse the text themselves (`readJsonBody`, knowledge uploads).
 *
 * A route that declares `bodyArrayLimits` has its JSON body's top-level lists counted first, in
 * the raw bytes: one over its limit is refused with the `too_long` answer its schema would give,
 * without the body being decoded or parsed (a PUT of a million messages would otherwise be one
 * uninterruptible `JSON.parse` of tens of megabytes before the limit is seen).
 */
export async function parseUtf8Body(request: FastifyRequest, body: Buffer): Promise<string> {
  const limits = request.routeOptions.config.bodyArrayLimits;
  // A list of more than `limit` items needs at least 2 × limit bytes ("0,"): smaller bodies pass.
  const smallest = limits ? Math.min(...Object.values(limits)) : Number.POSITIVE_INFINITY;
  if (limits && body.length > 2 * smallest && isJsonMediaType(request.headers['content-type'])) {
    const over = await overlongBodyArray(body, limits);
    if (over) {
      throw new RequestValidationError([
        {
          type: 'too_long',
          loc: ['body', over.field],
          msg: `List should have at most ${over.limit} items after validation`,
          input: [`… (more than ${over.limit} items)`],
          ctx: { field_type: 'List', max_length: over.limit },
        },
      ]);
    }
  }
  try {
    return decoder.decode(body);
  } catch {
    throw new ValidationError('There was an error parsing the body', [
      { path: ['body'], message: 'The body is not valid UTF-8' },
    ]);
  }
}
