import type { z } from 'zod';
import { truncateText } from './preview-value.js';

/** Error categories: each maps to one HTTP status and one MCP (JSON-RPC) error code. */
export type ErrorCategory =
  | 'validation'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'budget'
  | 'unprocessable'
  | 'unsupported_media_type'
  | 'unavailable'
  | 'internal';

/** HTTP status per category, used by the server transport. */
export const httpStatusByCategory: Record<ErrorCategory, number> = {
  validation: 400,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  unauthorized: 401,
  forbidden: 403,
  budget: 422,
  unprocessable: 422,
  unsupported_media_type: 415,
  unavailable: 503,
  internal: 500,
};

/** JSON-RPC error code per category, used by the MCP transport (-32602 = invalid params). */
export const mcpCodeByCategory: Record<ErrorCategory, number> = {
  validation: -32602,
  not_found: -32004,
  conflict: -32009,
  precondition_failed: -32012,
  unauthorized: -32001,
  forbidden: -32003,
  budget: -32022,
  unprocessable: -32602,
  unsupported_media_type: -32602,
  unavailable: -32503,
  internal: -32603,
};

/**
 * The one error base class. `code` is stable and machine-readable (never reworded);
 * `category` decides the HTTP status and MCP code; `details` carries structured context.
 */
export class EngramError extends Error {
  readonly code: string;
  readonly category: ErrorCategory;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: string,
    category: ErrorCategory,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngramError';
    this.code = code;
    this.category = category;
    this.details = options.details;
  }

  get httpStatus(): number {
    return httpStatusByCategory[this.category];
  }

  toJSON(): { code: string; category: ErrorCategory; message: string; details?: Record<string, unknown> } {
    return {
      code: this.code,
      category: this.category,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

/** One problem found while validating input: where (`path`) and what. */
export interface ValidationIssue {
  path: (string | number)[];
  message: string;
}

export class ValidationError extends EngramError {
  readonly issues: ValidationIssue[];

  constructor(message: string, issues: ValidationIssue[] = []) {
    super('validation_failed', 'validation', message, { details: { issues } });
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

export class NotFoundError extends EngramError {
  constructor(what: string, id: string) {
    // An id from a caller may be any length (a CLI argument, a path): quoted cut, never whole.
    const quoted = truncateText(id);
    super('not_found', 'not_found', `${what} ${quoted} not found`, { details: { what, id: quoted } });
    this.name = 'NotFoundError';
  }
}

/** Optimistic concurrency failure: the caller's `expectedVersion` is not the stored one. */
export class VersionConflictError extends EngramError {
  constructor(expected: number, actual: number | null, what = 'session') {
    super(
      'version_conflict',
      'conflict',
      actual === null
        ? `Expected version ${expected} but the ${what} does not exist`
        : `Expected version ${expected} but the ${what} is at version ${actual}`,
      { details: { expected, actual } },
    );
    this.name = 'VersionConflictError';
  }
}

/** The mandatory parts of a context (system prompt + current message) alone exceed the budget. */
export class ContextBudgetExceededError extends EngramError {
  constructor(required: number, available: number) {
    super(
      'context_budget_exceeded',
      'budget',
      `The system prompt and current message need ${required} tokens but only ${available} are available ` +
        '(maxWorkingMemoryTokens - reservedOutputTokens)',
      { details: { required, available } },
    );
    this.name = 'ContextBudgetExceededError';
  }
}

/** A backend failed (I/O error, closed store). Never used for "no results". */
export class StoreError extends EngramError {
  constructor(message: string, cause?: unknown) {
    super('store_unavailable', 'unavailable', message, { cause });
    this.name = 'StoreError';
  }
}

/** Converts a zod failure into a ValidationError that names every offending path. */
export function validationErrorFromZod(what: string, error: z.ZodError): ValidationError {
  const issues = error.issues.map((issue) => ({
    path: issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part)),
    message: issue.message,
  }));
  const summary = issues
    .slice(0, 3)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
  return new ValidationError(`Invalid ${what}: ${summary}`, issues);
}

/** Parses `input` with `schema`, throwing a ValidationError (never a raw ZodError). */
export function parseWith<T extends z.ZodType>(schema: T, input: unknown, what: string): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationErrorFromZod(what, result.error);
  return result.data;
}

/**
 * Parses a partial update: like parseWith, but keeps only the keys the caller named, because zod
 * fills in defaults even for optional fields of a `.partial()` schema, and an edit must never
 * reset a field it did not mention.
 */
export function parseEdit<T extends z.ZodType>(
  schema: T,
  input: unknown,
  what: string,
): Partial<z.output<T>> {
  const parsed = parseWith(schema, input, what) as Record<string, unknown>;
  const named = new Set(Object.keys(input as object));
  return Object.fromEntries(Object.entries(parsed).filter(([key]) => named.has(key))) as Partial<z.output<T>>;
}
