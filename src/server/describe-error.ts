import { EngramError } from '../core/errors.js';
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

const engramBody = (code: string, category: string, message: string, details?: Record<string, unknown>) => ({
  error: { code, category, message, ...(details ? { details } : {}) },
});

/** Framework errors (body too large, malformed headers) carry a 4xx `statusCode`. */
function clientStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * Maps any thrown value to an answer: validation → 422 (AMS) or 400 (engram); EngramError by its
 * category's `httpStatus`; framework 4xx as is; anything else → 500 `Internal Server Error`.
 */
export function describeError(error: unknown, shape: ErrorShape): ErrorAnswer {
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
    return { status: error.status, body: { detail: error.message }, unexpected: false };
  }
  if (error instanceof EngramError) {
    const status = error.httpStatus;
    return {
      status,
      body:
        shape === 'engram'
          ? { error: error.toJSON() }
          : // A 409 of the ownership rule names its stable code beside AMS's `detail` (docs/auth.md).
            error instanceof OwnedMemoryError
            ? { detail: error.message, code: error.code }
            : { detail: error.message },
      unexpected: status >= 500,
    };
  }
  const status = clientStatus(error);
  if (status !== undefined) {
    const message = (error as Error).message;
    const code = String((error as { code?: unknown }).code ?? 'bad_request');
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
