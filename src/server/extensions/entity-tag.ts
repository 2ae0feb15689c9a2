import { EngramError, VersionConflictError } from '../../core/errors.js';
import { type SessionRef, toSessionKey } from '../../engine/sessions/session-ref.js';
import type { Engram } from '../../engram.js';

/** The ETag of a session: its version, as a strong quoted tag (`"3"`). */
export const entityTag = (version: number): string => `"${version}"`;

function preconditionFailed(message: string, details: Record<string, unknown>): EngramError {
  return new EngramError('precondition_failed', 'precondition_failed', message, { details });
}

/** `*`, or the versions named by strong tags; weak or malformed tags never match (RFC 9110 §13.1.1). */
function parseIfMatch(header: string): '*' | number[] {
  if (header.trim() === '*') return '*';
  return header
    .split(',')
    .map((tag) => /^\s*"(\d{1,15})"\s*$/.exec(tag)?.[1])
    .filter((version): version is string => version !== undefined)
    .map(Number);
}

/**
 * The `expectedVersion` an `If-Match` header asks for (undefined without the header). A single tag
 * is passed on as is, so the store checks it atomically; `*` or a list is resolved against the
 * current version, which the write then still checks. No match → 412, nothing written.
 */
export async function expectedVersionFor(
  engram: Engram,
  ref: SessionRef,
  header: string | undefined,
): Promise<number | undefined> {
  if (header === undefined) return undefined;
  const tags = parseIfMatch(header);
  if (tags !== '*' && tags.length === 1) return tags[0];
  const state = await engram.store.getSession(toSessionKey(ref));
  if (state && (tags === '*' || tags.includes(state.version))) return state.version;
  throw preconditionFailed(`If-Match ${header} does not match the session ${ref.sessionId}`, {
    ifMatch: header,
    actual: state?.version ?? null,
  });
}

/** Runs a conditional write, turning a version conflict into 412 Precondition Failed. */
export async function conditionalWrite<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof VersionConflictError)) throw error;
    throw preconditionFailed(`If-Match does not match: ${error.message}`, error.details ?? {});
  }
}
