import {
  ContextBudgetExceededError,
  EngramError,
  NotFoundError,
  StoreError,
  ValidationError,
  VersionConflictError,
} from '../../core/errors.js';
import { JobLeaseLostError } from '../job-store.js';

/** An error as it crosses the thread boundary: plain data that structured clone copies whole. */
export interface TransferredError {
  name: string;
  message: string;
  stack: string | undefined;
  /** Present for an EngramError: its stable code, category and details (`issues` for validation). */
  engram?: { code: string; category: EngramError['category']; details: unknown; issues?: unknown };
}

/**
 * The error classes a store throws, by `name`: a revived error gets its class's prototype, so
 * `instanceof VersionConflictError` and `error.httpStatus` work on the calling thread as they do
 * with an in-process store. An EngramError of another name revives as a plain EngramError.
 */
const classes: Record<string, { prototype: object }> = {
  EngramError,
  ValidationError,
  NotFoundError,
  VersionConflictError,
  ContextBudgetExceededError,
  StoreError,
  JobLeaseLostError,
};

/** Reduces an error thrown in the store's thread to data (its `cause` is left behind). */
export function transferError(error: unknown): TransferredError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), stack: undefined };
  const transferred: TransferredError = { name: error.name, message: error.message, stack: error.stack };
  if (error instanceof EngramError) {
    transferred.engram = { code: error.code, category: error.category, details: error.details };
    if (error instanceof ValidationError) transferred.engram.issues = error.issues;
  }
  return transferred;
}

/** Rebuilds a transferred error with its class, code, category and details. */
export function reviveError(transferred: TransferredError): Error {
  const { engram } = transferred;
  if (engram === undefined) {
    const error = new Error(transferred.message);
    error.name = transferred.name;
    if (transferred.stack !== undefined) error.stack = transferred.stack;
    return error;
  }
  const prototype = (classes[transferred.name] ?? EngramError).prototype;
  const error = Object.create(prototype) as EngramError;
  Object.assign(error, {
    name: transferred.name,
    message: transferred.message,
    stack: transferred.stack,
    code: engram.code,
    category: engram.category,
    details: engram.details,
    ...(engram.issues === undefined ? {} : { issues: engram.issues }),
  });
  return error;
}
