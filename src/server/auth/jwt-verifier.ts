import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { type Role, roles, tenantIdSchema } from '../../core/schemas/role.js';
import type { JwtSettings } from './auth-settings.js';
import type { Principal } from './principal.js';
import { AuthUnavailableError, UnauthorizedError } from './unauthorized-error.js';

/** Verifies a JWT and maps its claims to the caller. */
export type JwtVerifier = (token: string) => Promise<Principal>;

/** Errors of the key set that are the token's fault (it names a key the issuer does not publish). */
const tokenKeyErrors = [errors.JWKSNoMatchingKey, errors.JWKSMultipleMatchingKeys, errors.JOSENotSupported];

/**
 * Wraps the remote key set so that failing to fetch it (network, timeout, not a JWKS) becomes a
 * 503 instead of blaming the token.
 */
function withFetchFailures(keySet: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await keySet(header, token);
    } catch (error) {
      if (tokenKeyErrors.some((type) => error instanceof type)) throw error;
      throw new AuthUnavailableError(error);
    }
  };
}

/** The role a claim names: one role, or the most powerful known role of an array (admin first). */
function roleOf(claim: unknown): Role | undefined {
  const named = Array.isArray(claim) ? claim : [claim];
  return roles.find((role) => named.includes(role));
}

function invalid(message: string): UnauthorizedError {
  return new UnauthorizedError('invalid_jwt', `Invalid JWT: ${message}`);
}

/** Maps jose's failures to AMS's 401 messages (spec §1.6). */
function describeFailure(error: unknown, settings: JwtSettings): Error {
  if (error instanceof AuthUnavailableError) return error;
  if (error instanceof errors.JWTExpired) return new UnauthorizedError('token_expired');
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') {
    return new UnauthorizedError(
      'invalid_jwt',
      `Invalid audience. Expected: ${settings.audience.join(', ')}`,
    );
  }
  if (error instanceof errors.JOSEError) return invalid(error.message);
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * JWT bearer tokens checked against the issuer's JWKS (fetched on first use, cached and refetched
 * by jose when a token names an unknown key): signature with an allowed algorithm, `iss`, `aud`,
 * a required `exp`, `nbf` (with the configured tolerance). The tenant and role come from the configured claims.
 */
export function createJwtVerifier(settings: JwtSettings): JwtVerifier {
  const keySet = withFetchFailures(createRemoteJWKSet(new URL(settings.jwksUrl)));
  const options = {
    issuer: settings.issuer,
    audience: settings.audience,
    algorithms: settings.algorithms,
    clockTolerance: settings.clockToleranceSeconds,
    requiredClaims: ['exp'],
  };
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keySet, options));
    } catch (error) {
      throw describeFailure(error, settings);
    }
    const tenant = tenantIdSchema.safeParse(payload[settings.tenantClaim]);
    if (!tenant.success) throw invalid(`claim "${settings.tenantClaim}" must name the tenant`);
    const claim = payload[settings.roleClaim];
    const role = claim === undefined ? settings.defaultRole : roleOf(claim);
    if (role === undefined)
      throw invalid(`claim "${settings.roleClaim}" must name a role (${roles.join(', ')})`);
    return { tenantId: tenant.data, role, subject: `jwt:${payload.sub ?? 'unknown'}` };
  };
}
