import { EngramError } from '../../core/errors.js';

/**
 * The version an `If-Match` header requires of a keyed record (agents): undefined without the
 * header or for `*` (the record must merely exist); a single strong tag `"N"` is N. Anything
 * else (weak tags, lists, malformed) can never match: 412.
 */
export function ifMatchVersion(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const version = /^\s*"(\d{1,15})"\s*$/.exec(header)?.[1];
  if (version !== undefined) return Number(version);
  throw new EngramError('precondition_failed', 'precondition_failed', `If-Match ${header} can never match`, {
    details: { ifMatch: header },
  });
}
