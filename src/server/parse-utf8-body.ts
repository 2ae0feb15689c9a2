import type { Readable } from 'node:stream';
import { errorCodes, type FastifyRequest } from 'fastify';
import { ALONE_CHARS, DEFAULT_SLICE_MS, nextTurn } from '../core/event-loop-slicer.js';
import { BodyBytes, notUtf8Error } from './body-bytes.js';
import {
  type BodyFieldCounter,
  type BodyFieldLimits,
  createBodyFieldCounter,
  type OverlongField,
  PREFIX_CHARS,
} from './overlong-body-field.js';
import { isJsonMediaType } from './read-json-body.js';
import { RequestValidationError } from './request-validation-error.js';

/** The answer a route's schema gives for a list or a string over its limit (`too_long`, `string_too_long`). */
const overlongError = (over: OverlongField) =>
  new RequestValidationError([
    over.kind === 'array'
      ? {
          type: 'too_long',
          loc: ['body', over.field],
          msg: `List should have at most ${over.limit} items after validation`,
          input: [`… (more than ${over.limit} items)`],
          ctx: { field_type: 'List', max_length: over.limit },
        }
      : {
          type: 'string_too_long',
          loc: ['body', over.field],
          msg: `String should have at most ${over.limit} character${over.limit === 1 ? '' : 's'}`,
          input: `${over.prefix ?? ''}… (more than ${over.limit} characters)`,
          ctx: { max_length: over.limit },
        },
  ]);

/** A counter for the request's body when its route limits fields and the body could exceed one. */
function counterFor(request: FastifyRequest, contentLength: number): BodyFieldCounter | undefined {
  const limits = request.routeOptions.config.bodyFieldLimits;
  if (!limits || !isJsonMediaType(request.headers['content-type'])) return undefined;
  // A list of more than `limit` items needs at least 2 × limit bytes ("0,"), a string of more than
  // `limit` characters more than `limit` bytes: smaller bodies pass.
  const smallest = Math.min(
    ...Object.values(limits.arrays ?? {}).map((limit) => 2 * limit),
    ...Object.values(limits.strings ?? {}),
  );
  return contentLength <= smallest ? undefined : createBodyFieldCounter(limits);
}

/** The text limit of the request's route when its body is not JSON (a raw upload) and could exceed it. */
function textLimitFor(request: FastifyRequest, contentLength: number): BodyFieldLimits['text'] {
  const text = request.routeOptions.config.bodyFieldLimits?.text;
  if (!text || isJsonMediaType(request.headers['content-type'])) return undefined;
  // A character takes at least one byte: a body of at most `limit` bytes cannot exceed it.
  return contentLength <= text.limit ? undefined : text;
}

/**
 * A JSON body of at least this many bytes (by `Content-Length`) reaches a `bodyAsBytes` route as
 * bytes, for a worker thread to read: about 50,000 short messages. Smaller ones are read on the
 * request thread, in slices past SLICED_JSON_CHARS: there a worker's start (~0.5 s) would cost
 * the request more than the slices cost everyone else.
 */
export const WORKER_BODY_BYTES = 4 * 1024 * 1024;

/** Whether the request's body is kept as bytes (a `bodyAsBytes` route's large JSON body). */
function keepsBytes(request: FastifyRequest, contentLength: number): boolean {
  return (
    request.routeOptions.config.bodyAsBytes === true &&
    isJsonMediaType(request.headers['content-type']) &&
    Number.isInteger(contentLength) &&
    contentLength >= WORKER_BODY_BYTES
  );
}

/** The first PREFIX_CHARS characters of the decoded parts (never half a surrogate pair). */
function prefixOf(parts: readonly string[]): string {
  let prefix = '';
  for (const part of parts) {
    prefix += part.slice(0, PREFIX_CHARS - prefix.length);
    if (prefix.length >= PREFIX_CHARS) break;
  }
  return /[\uD800-\uDBFF]$/.test(prefix) ? prefix.slice(0, -1) : prefix;
}

/**
 * Fastify content-type parser for every body, reading the request stream itself:
 * - the body limit (`bodyLimitBytes`, or the route's) is enforced from `Content-Length` before
 *   anything is read, and on the bytes received (413 `FST_ERR_CTP_BODY_TOO_LARGE`), as Fastify's
 *   own reader does;
 * - a route that declares `bodyFieldLimits` has its JSON body's top-level lists and strings
 *   measured as the chunks arrive: one over its limit is refused with the answer its schema would
 *   give (`too_long`, `string_too_long`; the echoed input says "more than" the limit) as soon as
 *   the count passes the limit, without the rest of the body being received, gathered, decoded or
 *   parsed (a PUT of a million messages is refused after its first 100,001, a knowledge document
 *   of 40 MB after its first 5,000,001 characters); a route whose raw text body (not JSON) becomes
 *   one field (`bodyFieldLimits.text`: a `text/markdown` upload) has the decoded characters
 *   counted the same way;
 * - the bytes are decoded as strict UTF-8, so a body that is not UTF-8 is refused (400) before any
 *   route sees it, as FastAPI refuses it (its JSON decoder fails with a UnicodeDecodeError,
 *   answered 400 "There was an error parsing the body") instead of storing replacement characters.
 *   A UTF-8 byte-order mark is dropped, as Python's `json.loads` does.
 * - a `bodyAsBytes` route's JSON body of at least WORKER_BODY_BYTES (by `Content-Length`)
 *   is kept as those bytes (`BodyBytes`), counted as above but not decoded: the route moves it
 *   to a worker thread, which checks its UTF-8 (a large working-memory PUT).
 * Routes still parse the text themselves (`readJsonBody`, knowledge uploads). Each chunk (64 KB
 * at most from a socket) is counted and decoded as it arrives, in one short step, so a large body
 * never holds the event loop: gathering a 6 MB body into one buffer and decoding it whole took
 * 50–100 ms in one step on the 2-vCPU development machine; what is left at the end is one join of
 * the decoded parts (a copy).
 */
export function readUtf8Body(
  request: FastifyRequest,
  payload: Readable,
  done: (error: Error | null, body?: string | BodyBytes) => void,
): void {
  const limit = request.routeOptions.bodyLimit;
  const contentLength = Number(request.headers['content-length']);
  if (contentLength > limit) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    return;
  }
  const knownLength = Number.isNaN(contentLength) ? Number.POSITIVE_INFINITY : contentLength;
  // A large JSON body of a `bodyAsBytes` route is kept as the chunks received.
  const bytes = keepsBytes(request, contentLength) ? new BodyBytes() : undefined;
  const counter = counterFor(request, knownLength);
  const textLimit = textLimitFor(request, knownLength);
  let decodedChars = 0;
  // Strict (a byte sequence that is not UTF-8 throws instead of becoming U+FFFD) and streaming:
  // a character split between two chunks is decoded with the second.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parts: string[] = [];
  let notUtf8 = false;
  const decode = (chunk?: Buffer) => {
    if (notUtf8) return;
    try {
      const text = chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
      if (text !== '') parts.push(text);
      decodedChars += text.length;
    } catch {
      notUtf8 = true;
    }
  };
  let received = 0;
  let sliceStart = performance.now();
  /** The answer for a raw text body past its route's text limit, once it is. */
  const textOver = () =>
    textLimit && decodedChars > textLimit.limit
      ? overlongError({ ...textLimit, kind: 'string', prefix: prefixOf(parts) })
      : undefined;

  const finish = (error: Error | null, body?: string | BodyBytes) => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    done(error, body);
  };
  function onData(data: Buffer | string): void {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    received += chunk.length;
    const over = received > limit ? undefined : counter?.feed(chunk);
    if (received > limit) finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    else if (over) finish(overlongError(over));
    else {
      if (bytes) bytes.append(chunk);
      else {
        decode(chunk);
        const overText = textOver();
        if (overText) {
          finish(overText);
          return;
        }
      }
      // Several chunks can arrive in one turn of the event loop: after a slice of counting and
      // decoding, let other requests run before reading on.
      if (performance.now() - sliceStart > DEFAULT_SLICE_MS) {
        payload.pause();
        void nextTurn().then(() => {
          sliceStart = performance.now();
          payload.resume();
        });
      }
    }
  }
  function onError(error: Error & { statusCode?: number }): void {
    if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
    finish(error);
  }
  function onEnd(): void {
    if (!Number.isNaN(contentLength) && received !== contentLength) {
      finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      return;
    }
    if (bytes) {
      finish(null, bytes);
      return;
    }
    // The end of the stream: a character left incomplete is not UTF-8 either.
    decode();
    if (notUtf8) {
      finish(notUtf8Error());
      return;
    }
    const overText = textOver();
    if (overText) {
      finish(overText);
      return;
    }
    // The decoder drops a UTF-8 byte-order mark (`ignoreBOM` is false).
    if (decodedChars < ALONE_CHARS) {
      finish(null, parts.length === 1 ? parts[0] : parts.join(''));
      return;
    }
    // A long body's join, and the route's parse that follows it, each hold the loop for a while
    // (a fresh 1 MB string costs ~3 ms of page faults on the development machine): each gets a
    // turn of its own, so that other requests run before, between and after them.
    void nextTurn().then(() => {
      const body = parts.join('');
      void nextTurn().then(() => finish(null, body));
    });
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}
