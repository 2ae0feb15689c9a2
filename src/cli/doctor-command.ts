import { existsSync, statSync } from 'node:fs';
import { createStaticEmbeddingProvider } from '../providers/embeddings/static-embedding-provider.js';
import { createOpenAIChatProvider } from '../providers/llm/openai-chat-provider.js';
import { resolveServerConfig, type ServerConfig } from '../server/server-config.js';
import { createSqliteStore } from '../stores/sqlite/sqlite-store.js';
import type { CliIo } from './cli-io.js';
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
  if (!existsSync(path)) {
    return {
      name: 'store',
      ok: true,
      detail: `sqlite ${path}: not created yet (the first write creates it)`,
    };
  }
  try {
    const { value, ms } = await timed(async () => {
      const store = await createSqliteStore({ path });
      try {
        return (await store.listSessions({ tenantId: 'default', limit: 1, offset: 0 })).total;
      } finally {
        await store.close();
      }
    });
    const size = (statSync(path).size / 1024 / 1024).toFixed(1);
    return {
      name: 'store',
      ok: true,
      detail: `sqlite ${path}: opened and migrated in ${ms.toFixed(0)} ms, ${size} MiB, ${value} sessions in tenant default`,
    };
  } catch (error) {
    return { name: 'store', ok: false, detail: `sqlite ${path}: ${message(error)}` };
  }
}

async function checkEmbedder(): Promise<Check> {
  try {
    const { value: embedder, ms } = await timed(() => createStaticEmbeddingProvider());
    const [vector] = await embedder.embed(['engram doctor']);
    return {
      name: 'embedder',
      ok: vector?.length === embedder.dimensions,
      detail: `${embedder.model}, ${embedder.dimensions} dimensions, loaded in ${ms.toFixed(0)} ms`,
    };
  } catch (error) {
    return { name: 'embedder', ok: false, detail: message(error) };
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
      detail: `${config.llm.baseUrl} answered as ${value.model} in ${ms.toFixed(0)} ms`,
    };
  } catch (error) {
    return {
      name: 'llm',
      ok: false,
      detail: `${config.llm.baseUrl} (${config.llm.model}): ${message(error)}`,
    };
  }
}

/** The resolved settings with secrets replaced by whether they are set. */
export function redactedSettings(config: ServerConfig): unknown {
  const { llm, auth, ...rest } = config;
  return {
    ...rest,
    auth: JSON.parse(
      JSON.stringify(auth, (key, value) =>
        /secret|key$/i.test(key) && typeof value === 'string' ? '(set)' : value,
      ),
    ),
    llm: llm ? { ...llm, apiKey: llm.apiKey ? '(set)' : '(not set)' } : null,
  };
}

/**
 * `engram doctor`: versions, the settings in force (flags > environment > config file, as `serve`
 * resolves them, secrets redacted) and whether the store, the embedder and the LLM answer.
 * Exit code 1 when a check fails.
 */
export async function runDoctor(flags: StoreFlags & { json?: boolean }, io: CliIo): Promise<number> {
  const config = resolveServerConfig({ db: flags.db, config: flags.config }, io.environment);
  const checks = [await checkStore(config), await checkEmbedder(), await checkLlm(config)];
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
