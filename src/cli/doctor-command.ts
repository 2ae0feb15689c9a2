import { existsSync, statSync } from 'node:fs';
import { redactedUrl } from '../core/redacted-url.js';
import type { EmbeddingProvider } from '../providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../providers/embeddings/static-embedding-provider.js';
import { createOpenAIChatProvider } from '../providers/llm/openai-chat-provider.js';
import { embedderOptionOf } from '../server/embedder-option.js';
import { openConfiguredStore, redactedStoreUrl } from '../server/open-configured-store.js';
import { resolveServerConfig, type ServerConfig } from '../server/server-config.js';
import type { CliIo } from './cli-io.js';
import { databasePathProblem } from './database-path-problem.js';
import { engramVersion } from './engram-version.js';
import type { StoreFlags } from './open-engram.js';

/** How long doctor waits for the LLM's one-token answer. */
export const DOCTOR_LLM_TIMEOUT_MS = 15_000;

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

async function checkStore(config: ServerConfig): Promise<Check> {
  const path = config.databasePath;
  const where =
    config.storeUrl === undefined ? `sqlite ${path}` : `postgres ${redactedStoreUrl(config.storeUrl)}`;
  if (config.storeUrl === undefined && !existsSync(path)) {
    const problem = databasePathProblem(path);
    if (problem) return { name: 'store', ok: false, detail: `${where}: ${problem}` };
    return { name: 'store', ok: true, detail: `${where}: not created yet (the first write creates it)` };
  }
  try {
    const { value, ms } = await timed(async () => {
      // Opened as `serve` opens it (the PostgreSQL URL when one is set), migrated, then closed.
      const { store } = await openConfiguredStore({ ...config, storeThread: 'main' }, () => {});
      try {
        return (await store.listSessions({ tenantId: 'default', limit: 1, offset: 0 })).total;
      } finally {
        await store.close();
      }
    });
    const size =
      config.storeUrl === undefined ? `, ${(statSync(path).size / 1024 / 1024).toFixed(1)} MiB` : '';
    return {
      name: 'store',
      ok: true,
      detail: `${where}: opened and migrated in ${ms.toFixed(0)} ms${size}, ${value} sessions in tenant default`,
    };
  } catch (error) {
    return { name: 'store', ok: false, detail: `${where}: ${message(error)}` };
  }
}

/** The embedder `serve` would use: the configured endpoint, else the offline static vectors. */
async function checkEmbedder(config: ServerConfig): Promise<Check> {
  try {
    const { value: embedder, ms: loaded } = await timed(
      async (): Promise<EmbeddingProvider> =>
        embedderOptionOf(config).embedder ?? (await createStaticEmbeddingProvider()),
    );
    const { value: vectors, ms } = await timed(() =>
      embedder.embed(['engram doctor'], { signal: AbortSignal.timeout(DOCTOR_LLM_TIMEOUT_MS) }),
    );
    const length = vectors[0]?.length ?? 0;
    const endpoint = config.embeddings ? `${redactedUrl(config.embeddings.baseUrl)} ` : '';
    return {
      name: 'embedder',
      ok: length > 0 && (embedder.dimensions === 0 || length === embedder.dimensions),
      detail: config.embeddings
        ? `${endpoint}(${embedder.model}) answered ${length} dimensions in ${ms.toFixed(0)} ms`
        : `${embedder.model}, ${embedder.dimensions} dimensions, loaded in ${loaded.toFixed(0)} ms`,
    };
  } catch (error) {
    const endpoint = config.embeddings
      ? `${redactedUrl(config.embeddings.baseUrl)} (${config.embeddings.model}): `
      : '';
    return { name: 'embedder', ok: false, detail: `${endpoint}${message(error)}` };
  }
}

async function checkLlm(config: ServerConfig): Promise<Check> {
  if (!config.llm) {
    return {
      name: 'llm',
      ok: true,
      detail: 'not configured: summaries are extractive, no extraction (docs/llm.md)',
    };
  }
  const llm = createOpenAIChatProvider(config.llm);
  try {
    const { value, ms } = await timed(() =>
      llm.complete({
        messages: [{ role: 'user', content: 'Reply with the word OK.' }],
        maxTokens: 1,
        signal: AbortSignal.timeout(DOCTOR_LLM_TIMEOUT_MS),
      }),
    );
    return {
      name: 'llm',
      ok: true,
      detail: `${redactedUrl(config.llm.baseUrl)} answered as ${value.model} in ${ms.toFixed(0)} ms`,
    };
  } catch (error) {
    return {
      name: 'llm',
      ok: false,
      detail: `${redactedUrl(config.llm.baseUrl)} (${config.llm.model}): ${message(error)}`,
    };
  }
}

/** Keys whose string values are secrets: API keys, secrets, passwords, tokens. */
const SECRET_KEY = /secret|password|token|key$/i;

/**
 * The resolved settings with every secret replaced by whether it is set: API keys (LLM,
 * embeddings, auth), secrets, passwords, the password of the PostgreSQL URL, and the user info and
 * query values of the providers' base URLs.
 */
export function redactedSettings(config: ServerConfig): unknown {
  const redacted = JSON.parse(
    JSON.stringify(config, (key, value) => {
      if (key === 'storeUrl' && typeof value === 'string') return redactedStoreUrl(value);
      // A provider's base URL may carry a key (`https://user:key@host/v1`, `?api-key=…`).
      if (key === 'baseUrl' && typeof value === 'string') return redactedUrl(value);
      return SECRET_KEY.test(key) && typeof value === 'string' ? '(set)' : value;
    }),
  ) as Record<string, unknown>;
  for (const part of ['llm', 'embeddings'] as const) {
    const settings = redacted[part] as Record<string, unknown> | undefined;
    if (settings) settings.apiKey ??= '(not set)';
  }
  return { ...redacted, llm: redacted.llm ?? null };
}

/**
 * `engram doctor`: versions, the settings in force (flags > environment > config file, as `serve`
 * resolves them, secrets redacted) and whether the store, the embedder and the LLM answer.
 * Exit code 1 when a check fails.
 */
export async function runDoctor(flags: StoreFlags & { json?: boolean }, io: CliIo): Promise<number> {
  const config = resolveServerConfig(
    { db: flags.db, store: flags.store, config: flags.config },
    io.environment,
  );
  const checks = [await checkStore(config), await checkEmbedder(config), await checkLlm(config)];
  const versions = {
    engram: engramVersion,
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
  };
  const settings = redactedSettings(config);
  if (flags.json) {
    io.stdout.write(`${JSON.stringify({ versions, settings, checks })}\n`);
  } else {
    io.stdout.write(`engram ${versions.engram} on Node ${versions.node} (${versions.platform})\n\n`);
    for (const check of checks)
      io.stdout.write(`${check.ok ? 'ok  ' : 'FAIL'}  ${check.name.padEnd(8)} ${check.detail}\n`);
    io.stdout.write(`\nsettings in force:\n${JSON.stringify(settings, null, 2)}\n`);
  }
  return checks.every((check) => check.ok) ? 0 : 1;
}
