import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseWith, ValidationError } from '../core/errors.js';
import { writePathSettingsSchema } from '../engine/write-path/write-path-settings.js';
import { authSettingsSchema, mergeAuthLayers } from './auth/auth-settings.js';

/** An integer given as a number or as decimal text (environment variables and flags are text). */
const integerSetting = (minimum: number, maximum: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
    z.number().int().min(minimum).max(maximum),
  );

/** Numbers and booleans given as text (environment variables) become such; the schema checks the rest. */
const numericText = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? Object.fromEntries(
        Object.entries(value).map(([key, field]) => [
          key,
          typeof field !== 'string'
            ? field
            : /^\s*\d+(\.\d+)?\s*$/.test(field)
              ? Number(field)
              : /^\s*(true|false)\s*$/i.test(field)
                ? field.trim().toLowerCase() === 'true'
                : field,
        ]),
      )
    : value;

/** The chat model of the LLM features (an OpenAI-compatible server); absent = those features are off. */
export const llmSettingsSchema = z.strictObject({
  baseUrl: z.url(),
  model: z.string().min(1).max(256),
  apiKey: z.string().min(1).optional(),
  timeoutMs: integerSetting(1, 600_000).optional(),
});

/**
 * An OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, TEI) for long-term memory;
 * absent = the offline static word vectors. A model change re-embeds stored memories in the
 * background on each tenant's first search (docs/embeddings.md).
 */
export const embeddingSettingsSchema = z.strictObject({
  baseUrl: z.url(),
  model: z.string().min(1).max(256),
  apiKey: z.string().min(1).optional(),
  /** Requested output size, for models that can shorten; absent: the model's own size. */
  dimensions: integerSetting(1, 65_536).optional(),
  timeoutMs: integerSetting(1, 600_000).optional(),
});

/** Log levels of pino; `silent` turns logging off. */
export const logLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** A list given as an array or as comma-separated text (environment variables and flags are text). */
const listSetting = (value: unknown) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
    : value;

/** The HTTP server's settings, with their defaults. */
export const serverConfigSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: integerSetting(0, 65_535).default(8000),
  databasePath: z.string().min(1).default('./data/engram.db'),
  /**
   * A PostgreSQL URL (`postgres://user@host:5432/db`, optional `?schema=NAME`): the store of every
   * server sharing it; absent = the SQLite file at `databasePath` (docs/stores/postgres.md).
   */
  storeUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /**
   * Where the SQLite store runs: `worker` (a thread of its own, so its synchronous statements and
   * fsyncs never hold requests; docs/stores/sqlite.md) or `main` (in the request thread).
   */
  storeThread: z.enum(['worker', 'main']).default('worker'),
  /** PostgreSQL connections per server process. */
  storePoolSize: integerSetting(1, 1_000).default(10),
  /** `ef_construction` of the PostgreSQL HNSW indexes (docs/stores/postgres.md). */
  storeHnswEfConstruction: integerSetting(32, 1_000).default(200),
  /** pgvector's `hnsw.ef_search` on the PostgreSQL connections (docs/stores/postgres.md). */
  storeHnswEfSearch: integerSetting(1, 1_000).default(300),
  /**
   * How long a claimed background job stays leased without a heartbeat: after a crash, another
   * server sharing the store re-runs the job once this has passed.
   */
  jobLeaseMs: integerSetting(1_000, 3_600_000).default(60_000),
  logLevel: logLevelSchema.default('info'),
  bodyLimitBytes: integerSetting(1, 1_073_741_824).default(1_048_576),
  /** How long shutdown waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs: integerSetting(0, 600_000).default(10_000),
  auth: authSettingsSchema.default({ mode: 'disabled', apiKeys: true }),
  /**
   * With authentication off, the host names (beside loopback ones) that `Host` and `Origin` may
   * carry: against DNS rebinding (docs/auth.md). An entry may carry a port (`proxy.lan:8443`).
   */
  allowedHosts: z
    .preprocess(
      listSetting,
      z
        .array(
          z
            .string()
            .trim()
            .min(1)
            .max(260)
            .regex(/^[\w.\-[\]:]+$/),
        )
        .max(100),
    )
    .default([]),
  llm: llmSettingsSchema.optional(),
  embeddings: embeddingSettingsSchema.optional(),
  /** Background write path (docs/write-path.md); absent keys take the engine's defaults. */
  writePath: z.preprocess(numericText, writePathSettingsSchema).optional(),
});
export type ServerConfig = z.output<typeof serverConfigSchema>;
export type ServerConfigInput = z.input<typeof serverConfigSchema>;

/** Environment variables read by the server, and the setting each one sets. */
export const environmentVariables = {
  ENGRAM_HOST: 'host',
  ENGRAM_PORT: 'port',
  ENGRAM_DATABASE_PATH: 'databasePath',
  ENGRAM_STORE_URL: 'storeUrl',
  ENGRAM_STORE_THREAD: 'storeThread',
  ENGRAM_STORE_POOL_SIZE: 'storePoolSize',
  ENGRAM_STORE_HNSW_EF_CONSTRUCTION: 'storeHnswEfConstruction',
  ENGRAM_STORE_HNSW_EF_SEARCH: 'storeHnswEfSearch',
  ENGRAM_JOB_LEASE_MS: 'jobLeaseMs',
  ENGRAM_LOG_LEVEL: 'logLevel',
  ENGRAM_BODY_LIMIT_BYTES: 'bodyLimitBytes',
  ENGRAM_SHUTDOWN_TIMEOUT_MS: 'shutdownTimeoutMs',
  ENGRAM_ALLOWED_HOSTS: 'allowedHosts',
} as const satisfies Record<string, keyof ServerConfig>;

/** Environment variables of `llm` and `writePath` (merged key by key over the config file's). */
export const llmEnvironmentVariables = {
  ENGRAM_LLM_BASE_URL: 'baseUrl',
  ENGRAM_LLM_MODEL: 'model',
  ENGRAM_LLM_API_KEY: 'apiKey',
  ENGRAM_LLM_TIMEOUT_MS: 'timeoutMs',
} as const;
/** Environment variables of `embeddings` (merged key by key over the config file's). */
export const embeddingEnvironmentVariables = {
  ENGRAM_EMBEDDINGS_BASE_URL: 'baseUrl',
  ENGRAM_EMBEDDINGS_MODEL: 'model',
  ENGRAM_EMBEDDINGS_API_KEY: 'apiKey',
  ENGRAM_EMBEDDINGS_DIMENSIONS: 'dimensions',
  ENGRAM_EMBEDDINGS_TIMEOUT_MS: 'timeoutMs',
} as const;
export const writePathEnvironmentVariables = {
  ENGRAM_SUMMARY_THRESHOLD: 'summaryThreshold',
  ENGRAM_SUMMARY_KEEP_RECENT: 'summaryKeepRecent',
  ENGRAM_SUMMARY_CONTEXT_WINDOW: 'contextWindow',
  ENGRAM_EXTRACTION_DEBOUNCE_MS: 'extractionDebounceMs',
  ENGRAM_INDEX_MESSAGES: 'indexMessages',
  ENGRAM_RETENTION_DAYS: 'retentionDays',
} as const;

/** Command-line flags of `engram serve` (all optional). */
export interface ServerFlags {
  host?: string | undefined;
  port?: string | undefined;
  db?: string | undefined;
  /** A PostgreSQL URL: sets `storeUrl`. */
  store?: string | undefined;
  config?: string | undefined;
  /** `enabled` or `disabled`: sets `auth.mode`. */
  auth?: string | undefined;
  /** Comma-separated: sets `allowedHosts`. */
  'allowed-hosts'?: string | undefined;
  /** `llm.baseUrl` and `llm.model` (the API key only from the environment or the file). */
  'llm-base-url'?: string | undefined;
  'llm-model'?: string | undefined;
  /** `embeddings.baseUrl`, `.model` and `.dimensions` (the API key only from the environment or the file). */
  'embeddings-base-url'?: string | undefined;
  'embeddings-model'?: string | undefined;
  'embeddings-dimensions'?: string | undefined;
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
    ['allowedHosts', flags['allowed-hosts']],
    ['storeUrl', flags.store],
  ]);
  const auth = mergeAuthLayers(fromFile.auth, environment, flags.auth);
  const llm = mergeLayers(fromFile.llm, [
    ...variables(llmEnvironmentVariables, environment),
    ['baseUrl', flags['llm-base-url']],
    ['model', flags['llm-model']],
  ]);
  const embeddings = mergeLayers(fromFile.embeddings, [
    ...variables(embeddingEnvironmentVariables, environment),
    ['baseUrl', flags['embeddings-base-url']],
    ['model', flags['embeddings-model']],
    ['dimensions', flags['embeddings-dimensions']],
  ]);
  const writePath = mergeLayers(fromFile.writePath, variables(writePathEnvironmentVariables, environment));
  return parseWith(
    serverConfigSchema,
    {
      ...fromFile,
      ...fromEnvironment,
      ...fromFlags,
      ...(auth === undefined ? {} : { auth }),
      ...(llm === undefined ? {} : { llm }),
      ...(embeddings === undefined ? {} : { embeddings }),
      ...(writePath === undefined ? {} : { writePath }),
    },
    'server config',
  );
}

const variables = (names: Record<string, string>, environment: Record<string, string | undefined>) =>
  Object.entries(names).map(([variable, key]): [string, unknown] => [key, environment[variable]]);

/** A settings object from the file, with the given (defined) keys laid over it. */
function mergeLayers(file: unknown, over: [string, unknown][]): unknown {
  const overrides = defined(over);
  if (Object.keys(overrides).length === 0) return file;
  const base = typeof file === 'object' && file !== null && !Array.isArray(file) ? file : {};
  return { ...base, ...overrides };
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
