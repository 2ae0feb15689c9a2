import { EngramError } from '../core/errors.js';
import { MAX_DETAILS_CHARS, previewValue, truncateText } from '../core/preview-value.js';
import { OwnedMemoryError } from '../engine/long-term/memory-owner.js';
import { AmsHttpError } from './ams/ams-http-error.js';
import { RequestValidationError } from './request-validation-error.js';

/** Which error body a route answers with: AMS/FastAPI `{"detail": …}` or engram's `{"error": {…}}`. */
export type ErrorShape = 'ams' | 'engram';

/** The status and JSON body answering an error, plus whether it is the server's fault (to be logged). */
export interface ErrorAnswer {
  status: number;
  body: unknown;
  unexpected: boolean;
}

/** Longest error message answered (engram's messages are short; a quoted value may not be). */
const MAX_MESSAGE_CHARS = 1_000;

const engramBody = (code: string, category: string, message: string, details?: Record<string, unknown>) => ({
  error: { code, category, message, ...(details ? { details } : {}) },
});

/** Settings an error message names (the body limit, for a 413). */
export interface ErrorLimits {
  bodyLimitBytes?: number;
}

/** The 413 message: the limit in bytes and the setting that raises it. */
export function bodyTooLargeMessage(bodyLimitBytes: number | undefined): string {
  const limit = bodyLimitBytes === undefined ? 'the body limit' : `the body limit of ${bodyLimitBytes} bytes`;
  return (
    `Request body is larger than ${limit}; the server's bodyLimitBytes setting ` +
    '(environment ENGRAM_BODY_LIMIT_BYTES or the config file key "bodyLimitBytes") raises it'
  );
}

/** Framework errors (body too large, malformed headers) carry a 4xx `statusCode`. */
function clientStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * Maps any thrown value to an answer: validation → 422 (AMS) or 400 (engram); EngramError by its
 * category's `httpStatus`; framework 4xx as is; anything else → 500 `Internal Server Error`.
 */
export function describeError(error: unknown, shape: ErrorShape, limits: ErrorLimits = {}): ErrorAnswer {
  if (error instanceof RequestValidationError) {
    return shape === 'ams'
      ? { status: 422, body: { detail: error.details }, unexpected: false }
      : {
          status: 400,
          body: engramBody('validation_failed', 'validation', error.message, { issues: error.details }),
          unexpected: false,
        };
  }
  if (error instanceof AmsHttpError) {
    return { status: error.status, body: { detail: truncateText(error.message) }, unexpected: false };
  }
  if (error instanceof EngramError) {
    const status = error.httpStatus;
    // Messages and details may quote a caller's value: both are bounded here.
    const message = truncateText(error.message, MAX_MESSAGE_CHARS);
    const details = error.details
      ? (previewValue(error.details, MAX_DETAILS_CHARS) as Record<string, unknown>)
      : undefined;
    return {
      status,
      body:
        shape === 'ams'
          ? // A 409 of the ownership rule names its stable code beside AMS's `detail` (docs/auth.md).
            error instanceof OwnedMemoryError
            ? { detail: message, code: error.code }
            : { detail: message }
          : engramBody(error.code, error.category, message, details),
      unexpected: status >= 500,
    };
  }
  const status = clientStatus(error);
  if (status !== undefined) {
    const code = String((error as { code?: unknown }).code ?? 'bad_request');
    const message =
      code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? bodyTooLargeMessage(limits.bodyLimitBytes)
        : truncateText((error as Error).message, MAX_MESSAGE_CHARS);
    return {
      status,
      body: shape === 'ams' ? { detail: message } : engramBody(code, 'validation', message),
      unexpected: false,
    };
  }
  const message = 'Internal Server Error';
  return {
    status: 500,
    body: shape === 'ams' ? { detail: message } : engramBody('internal', 'internal', message),
    unexpected: true,
  };
}
