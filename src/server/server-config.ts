import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseWith, ValidationError } from '../core/errors.js';
import { authSettingsSchema, mergeAuthLayers } from './auth/auth-settings.js';

/** An integer given as a number or as decimal text (environment variables and flags are text). */
const integerSetting = (minimum: number, maximum: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
    z.number().int().min(minimum).max(maximum),
  );

/** Log levels of pino; `silent` turns logging off. */
export const logLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** The HTTP server's settings, with their defaults. */
export const serverConfigSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: integerSetting(0, 65_535).default(8000),
  databasePath: z.string().min(1).default('./data/engram.db'),
  logLevel: logLevelSchema.default('info'),
  bodyLimitBytes: integerSetting(1, 1_073_741_824).default(1_048_576),
  /** How long shutdown waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs: integerSetting(0, 600_000).default(10_000),
  auth: authSettingsSchema.default({ mode: 'disabled', apiKeys: true }),
});
export type ServerConfig = z.output<typeof serverConfigSchema>;
export type ServerConfigInput = z.input<typeof serverConfigSchema>;

/** Environment variables read by the server, and the setting each one sets. */
export const environmentVariables = {
  ENGRAM_HOST: 'host',
  ENGRAM_PORT: 'port',
  ENGRAM_DATABASE_PATH: 'databasePath',
  ENGRAM_LOG_LEVEL: 'logLevel',
  ENGRAM_BODY_LIMIT_BYTES: 'bodyLimitBytes',
  ENGRAM_SHUTDOWN_TIMEOUT_MS: 'shutdownTimeoutMs',
} as const satisfies Record<string, keyof ServerConfig>;

/** Command-line flags of `engram serve` (all optional). */
export interface ServerFlags {
  host?: string | undefined;
  port?: string | undefined;
  db?: string | undefined;
  config?: string | undefined;
  /** `enabled` or `disabled`: sets `auth.mode`. */
  auth?: string | undefined;
}

const defined = (entries: [string, unknown][]) =>
  Object.fromEntries(entries.filter(([, value]) => value !== undefined));

/**
 * Resolves the settings from three layers, highest first: flags, environment variables
 * (`ENGRAM_HOST`, `ENGRAM_PORT`, …), then the JSON config file (`--config` or `ENGRAM_CONFIG`).
 * Unknown keys in the file and malformed values anywhere are a ValidationError.
 */
export function resolveServerConfig(
  flags: ServerFlags,
  environment: Record<string, string | undefined>,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): ServerConfig {
  const configPath = flags.config ?? environment.ENGRAM_CONFIG;
  const fromFile = configPath === undefined ? {} : readConfigFile(configPath, readFile);
  const fromEnvironment = defined(
    Object.entries(environmentVariables).map(([variable, key]) => [key, environment[variable]]),
  );
  const fromFlags = defined([
    ['host', flags.host],
    ['port', flags.port],
    ['databasePath', flags.db],
  ]);
  const auth = mergeAuthLayers(fromFile.auth, environment, flags.auth);
  return parseWith(
    serverConfigSchema,
    { ...fromFile, ...fromEnvironment, ...fromFlags, ...(auth === undefined ? {} : { auth }) },
    'server config',
  );
}

function readConfigFile(path: string, readFile: (path: string) => string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFile(path));
  } catch (error) {
    throw new ValidationError(`Cannot read config file ${path}: ${(error as Error).message}`, [
      { path: ['config'], message: (error as Error).message },
    ]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationError(`Config file ${path} must hold a JSON object`, [
      { path: ['config'], message: 'Not a JSON object' },
    ]);
  }
  return parsed as Record<string, unknown>;
}
