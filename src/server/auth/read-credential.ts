import type { IncomingHttpHeaders } from 'node:http';
import { UnauthorizedError } from './unauthorized-error.js';

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The token a request presents: `Authorization: Bearer <token>` (scheme case-insensitive), else
 * `X-API-Key: <key>` (which AMS's JS client sends when given an API key). Neither, another scheme
 * or an empty token: 401 `Missing authorization header`, as AMS answers.
 */
export function readCredential(headers: IncomingHttpHeaders): string {
  const authorization = single(headers.authorization)?.trim();
  const bearer = authorization && /^bearer\s+(\S.*)$/i.exec(authorization)?.[1]?.trim();
  if (bearer) return bearer;
  const apiKey = single(headers['x-api-key'])?.trim();
  if (apiKey) return apiKey;
  throw new UnauthorizedError('missing_credentials');
}
