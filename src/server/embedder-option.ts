import { createOpenAIEmbeddingProvider } from '../providers/embeddings/openai-embedding-provider.js';
import type { ServerConfig } from './server-config.js';

/**
 * The `embedder` option of createEngram for the configured embeddings endpoint; none (the offline
 * static vectors) without one. Shared by `serve` and `mcp`, which open the same database and must
 * embed with the same model.
 */
export function embedderOptionOf(config: Pick<ServerConfig, 'embeddings'>) {
  const settings = config.embeddings;
  if (!settings) return {};
  return {
    embedder: createOpenAIEmbeddingProvider({
      baseUrl: settings.baseUrl,
      model: settings.model,
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      ...(settings.dimensions ? { dimensions: settings.dimensions } : {}),
      ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
    }),
  };
}
