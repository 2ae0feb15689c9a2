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

/**
 * A request that failed validation before reaching engram. AMS routes answer it as
 * 422 `{"detail": [...]}`; engram's own routes as 400 `{"error": {code: "validation_failed", …}}`.
 */
export class RequestValidationError extends Error {
  readonly details: ValidationDetail[];

  constructor(details: ValidationDetail[]) {
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
