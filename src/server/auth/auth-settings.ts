import { z } from 'zod';
import { roleSchema } from '../../core/schemas/role.js';

/** An integer given as a number or as decimal text. */
const integerSetting = (minimum: number, maximum: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
    z.number().int().min(minimum).max(maximum),
  );

/** A boolean given as JSON or as `true`/`false`/`1`/`0` text. */
const booleanSetting = z.preprocess(
  (value) =>
    typeof value === 'string' && /^\s*(true|false|1|0)\s*$/i.test(value)
      ? /^\s*(true|1)\s*$/i.test(value)
      : value,
  z.boolean(),
);

/** A list given as a JSON array or as comma-separated text. */
const listSetting = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? value.split(',').map((part) => part.trim()) : value),
    z.array(item).min(1),
  );

/** Signature algorithms a JWKS can hold: asymmetric only (an HMAC secret is never published). */
export const jwtAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** JWT bearer tokens, verified against the issuer's published keys (docs/auth.md). */
export const jwtSettingsSchema = z.strictObject({
  jwksUrl: z.url({ protocol: /^https?$/ }),
  issuer: listSetting(z.string().min(1)),
  audience: listSetting(z.string().min(1)),
  /** The claim naming the tenant; top-level claims only (a URI claim name may contain dots). */
  tenantClaim: z.string().min(1).default('tenant_id'),
  /** The claim naming the role: a role name, or an array whose most powerful role counts. */
  roleClaim: z.string().min(1).default('role'),
  /** The role of a token without the role claim; absent = such tokens are refused. */
  defaultRole: roleSchema.optional(),
  algorithms: listSetting(z.enum(jwtAlgorithms)).default(['RS256', 'PS256', 'ES256', 'EdDSA']),
  /** Tolerated clock difference for `exp`/`nbf`, in seconds. */
  clockToleranceSeconds: integerSetting(0, 600).default(30),
});
export type JwtSettings = z.output<typeof jwtSettingsSchema>;

/**
 * Authentication: `disabled` (loopback only: every caller is the `default` tenant's admin) or
 * `enabled`, with API keys (on unless turned off) and/or JWTs (when `jwt` is set).
 */
export const authSettingsSchema = z
  .strictObject({
    mode: z.enum(['disabled', 'enabled']).default('disabled'),
    apiKeys: booleanSetting.default(true),
    jwt: jwtSettingsSchema.optional(),
  })
  .refine((auth) => auth.mode === 'disabled' || auth.apiKeys || auth.jwt !== undefined, {
    message: 'Authentication is enabled but accepts no credential: keep apiKeys on or configure jwt',
    path: ['apiKeys'],
  });
export type AuthSettings = z.output<typeof authSettingsSchema>;

/** Environment variables of the `auth` settings (`ENGRAM_JWT_*` fill `auth.jwt`). */
export const authEnvironmentVariables = {
  ENGRAM_AUTH_MODE: 'mode',
  ENGRAM_AUTH_API_KEYS: 'apiKeys',
} as const;
export const jwtEnvironmentVariables = {
  ENGRAM_JWT_JWKS_URL: 'jwksUrl',
  ENGRAM_JWT_ISSUER: 'issuer',
  ENGRAM_JWT_AUDIENCE: 'audience',
  ENGRAM_JWT_TENANT_CLAIM: 'tenantClaim',
  ENGRAM_JWT_ROLE_CLAIM: 'roleClaim',
  ENGRAM_JWT_DEFAULT_ROLE: 'defaultRole',
  ENGRAM_JWT_ALGORITHMS: 'algorithms',
  ENGRAM_JWT_CLOCK_TOLERANCE_SECONDS: 'clockToleranceSeconds',
} as const;

const defined = (entries: [string, unknown][]) =>
  Object.fromEntries(entries.filter(([, value]) => value !== undefined));

const fromVariables = (variables: Record<string, string>, environment: Record<string, string | undefined>) =>
  defined(Object.entries(variables).map(([variable, key]) => [key, environment[variable]]));

const objectOr = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * The `auth` object from its three layers (config file, environment, `--auth` flag; later ones
 * win), merged key by key, also inside `jwt`, so that the environment can set one JWT setting.
 */
export function mergeAuthLayers(
  file: unknown,
  environment: Record<string, string | undefined>,
  modeFlag: string | undefined,
): unknown {
  const fromFile = objectOr(file);
  if (file !== undefined && fromFile === undefined) return file; // let the schema report it
  const jwtFromEnvironment = fromVariables(jwtEnvironmentVariables, environment);
  const fileJwt = fromFile?.jwt;
  const jwt =
    Object.keys(jwtFromEnvironment).length === 0
      ? fileJwt
      : { ...(objectOr(fileJwt) ?? {}), ...jwtFromEnvironment };
  const merged = {
    ...fromFile,
    ...fromVariables(authEnvironmentVariables, environment),
    ...(modeFlag === undefined ? {} : { mode: modeFlag }),
    ...(jwt === undefined ? {} : { jwt }),
  };
  return Object.keys(merged).length === 0 ? undefined : merged;
}
