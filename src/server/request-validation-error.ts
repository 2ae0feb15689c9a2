import { previewValue, truncateText } from '../core/preview-value.js';

/** Where a request value came from, as FastAPI names it in `loc`. */
export type RequestLocation = 'body' | 'query' | 'path' | 'header';

/** One validation problem in FastAPI/pydantic form: `{type, loc, msg, input, ctx?}`. */
export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Most problems one error lists (zod reports one per bad item: a million bad items make a million). */
const MAX_DETAILS = 100;

/**
 * A request that failed validation before reaching engram. AMS routes answer it as
 * 422 `{"detail": [...]}`; engram's own routes as 400 `{"error": {code: "validation_failed", …}}`.
 */
export class RequestValidationError extends Error {
  readonly details: ValidationDetail[];

  constructor(details: ValidationDetail[]) {
    // The offending value is echoed back bounded: never a 5 MB document or a million-item list.
    details = details.slice(0, MAX_DETAILS).map((detail) => ({
      ...detail,
      msg: truncateText(detail.msg),
      input: previewValue(detail.input),
      ...(detail.ctx ? { ctx: previewValue(detail.ctx) as Record<string, unknown> } : {}),
    }));
    super(
      `Invalid request: ${details
        .slice(0, 3)
        .map((detail) => `${detail.loc.join('.')}: ${detail.msg}`)
        .join('; ')}`,
    );
    this.name = 'RequestValidationError';
    this.details = details;
  }
}
