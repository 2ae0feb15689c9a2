import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../core/errors.js';

/** Strict: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. */
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Fastify content-type parser for every body: the raw bytes decoded as strict UTF-8, so a body
 * that is not UTF-8 is refused (400) before any route sees it, as FastAPI refuses it (its JSON
 * decoder fails with a UnicodeDecodeError, answered 400 "There was an error parsing the body")
 * instead of storing replacement characters. A UTF-8 byte-order mark is dropped, as Python's
 * `json.loads` does. Routes still parse the text themselves (`readJsonBody`, knowledge uploads).
 */
export function parseUtf8Body(
  _request: FastifyRequest,
  body: Buffer,
  done: (error: Error | null, body?: string) => void,
): void {
  try {
    done(null, decoder.decode(body));
  } catch {
    done(
      new ValidationError('There was an error parsing the body', [
        { path: ['body'], message: 'The body is not valid UTF-8' },
      ]),
    );
  }
}
