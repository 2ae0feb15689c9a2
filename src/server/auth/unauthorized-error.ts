import { EngramError } from '../../core/errors.js';

/** Why a credential was refused, with AMS's wording (spec §1.6) as the message. */
const messages = {
  missing_credentials: 'Missing authorization header',
  invalid_token: 'Invalid token',
  token_expired: 'Token has expired',
} as const;

/**
 * 401: no usable credential, or one that is unknown, revoked, expired or an invalid JWT. The error
 * handler adds `WWW-Authenticate: Bearer` to every 401.
 */
export class UnauthorizedError extends EngramError {
  constructor(code: 'invalid_jwt', message: string);
  constructor(code: keyof typeof messages);
  constructor(code: keyof typeof messages | 'invalid_jwt', message?: string) {
    super(code, 'unauthorized', code === 'invalid_jwt' ? (message ?? 'Invalid JWT') : messages[code]);
    this.name = 'UnauthorizedError';
  }
}

/** The identity provider's keys cannot be fetched: not the caller's fault, so 503. */
export class AuthUnavailableError extends EngramError {
  constructor(cause: unknown) {
    super(
      'auth_unavailable',
      'unavailable',
      'Authentication is unavailable: the JSON Web Key Set cannot be fetched',
      { cause },
    );
    this.name = 'AuthUnavailableError';
  }
}
