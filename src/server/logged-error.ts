import { truncateText } from '../core/preview-value.js';

/** Longest error message a log line keeps (engram's own are far shorter). */
const MAX_LOGGED_MESSAGE_CHARS = 1_000;
/** Causes followed: an error's cause's cause is as far as a diagnosis usually needs. */
const MAX_CAUSE_DEPTH = 3;

/** An error as a log line holds it: content-free, so logs never carry users' data. */
export interface LoggedError {
  type: string;
  message: string;
  code?: string;
  category?: string;
  /** The details' numbers and booleans (a status, a count, a wait): never their texts. */
  details?: Record<string, number | boolean>;
  stack?: string;
  cause?: LoggedError;
}

/**
 * The logger's `err` serializer. An error's `details` may quote a caller's value or a provider's
 * answer (which can echo the prompt: messages, memories, knowledge), so only their numbers and
 * booleans are kept; the message is bounded; the stack keeps its frames under that message.
 */
export function loggedError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { type: typeof error, message: truncateText(String(error), 200) };
  const { code, category, details, cause } = error as Error & Record<string, unknown>;
  const message = truncateText(error.message, MAX_LOGGED_MESSAGE_CHARS);
  const frames = error.stack?.indexOf('\n    at ') ?? -1;
  const scalars = Object.entries(typeof details === 'object' && details !== null ? details : {}).filter(
    (entry): entry is [string, number | boolean] =>
      typeof entry[1] === 'boolean' || (typeof entry[1] === 'number' && Number.isFinite(entry[1])),
  );
  return {
    type: error.name,
    message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof category === 'string' ? { category } : {}),
    ...(scalars.length > 0 ? { details: Object.fromEntries(scalars) } : {}),
    ...(frames >= 0 ? { stack: `${error.name}: ${message}${error.stack?.slice(frames)}` } : {}),
    ...(cause !== undefined && depth < MAX_CAUSE_DEPTH ? { cause: loggedError(cause, depth + 1) } : {}),
  };
}
