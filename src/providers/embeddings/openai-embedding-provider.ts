import { z } from 'zod';
import { EngramError, parseWith } from '../../core/errors.js';
import { redactedUrl } from '../../core/redacted-url.js';
import type { EmbeddingProvider, EmbedOptions } from './embedding-provider.js';
import { fetchTextWithRetry, type RetryPolicy } from './fetch-with-retry.js';
import { l2Normalize } from './l2-normalize.js';

const optionsSchema = z.object({
  /** API root such as `https://api.openai.com/v1` or `http://localhost:11434/v1` (Ollama). */
  baseUrl: z.url(),
  /** The server's model name, e.g. `text-embedding-3-small` or `nomic-embed-text`. */
  model: z.string().min(1).max(256),
  /** Sent as `Authorization: Bearer …` when given. */
  apiKey: z.string().min(1).optional(),
  /** Requested output size (models that support shortening); otherwise learned from the first response. */
  dimensions: z.number().int().positive().max(65_536).optional(),
  /** Texts per request. */
  batchSize: z.number().int().positive().max(2_048).default(64),
  timeoutMs: z.number().int().positive().max(600_000).default(30_000),
  maxRetries: z.number().int().nonnegative().max(10).default(2),
  retryBaseDelayMs: z.number().nonnegative().max(60_000).default(500),
  /** Replaces the global fetch (proxies, tests). */
  fetch: z
    .custom<typeof fetch>((value) => typeof value === 'function', 'fetch must be a function')
    .optional(),
});

/** Options of {@link createOpenAIEmbeddingProvider}. */
export type OpenAIEmbeddingProviderOptions = z.input<typeof optionsSchema>;

const responseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()).min(1) })),
});

/**
 * A provider for any server speaking OpenAI's `POST /embeddings` (OpenAI, Ollama, vLLM, TEI, …).
 * Its model id is `openai:<model>@<dimensions>` when `dimensions` is configured, else `openai:<model>`
 * (the model's native size, learned from the first response; `dimensions` reads 0 until then).
 */
export function createOpenAIEmbeddingProvider(options: OpenAIEmbeddingProviderOptions): EmbeddingProvider {
  const config = parseWith(optionsSchema, options, 'OpenAI embedding provider options');
  const url = `${config.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const fetchImplementation = config.fetch ?? globalThis.fetch;
  const policy: RetryPolicy = {
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    baseDelayMs: config.retryBaseDelayMs,
  };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  let dimensions = config.dimensions ?? 0;

  async function embedBatch(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const body = JSON.stringify({ input: texts, model: config.model, dimensions: config.dimensions });
    const text = await fetchTextWithRetry(
      fetchImplementation,
      url,
      { method: 'POST', headers, body },
      policy,
      signal,
    );
    const vectors = parseResponse(text, texts.length, redactedUrl(url));
    dimensions ||= vectors[0]?.length ?? 0;
    for (const [index, vector] of vectors.entries()) {
      if (vector.length !== dimensions) {
        throw new EngramError(
          'embedding_dimension_mismatch',
          'validation',
          `${config.model} returned a ${vector.length}-dimensional vector where ${dimensions} were expected`,
          { details: { model: config.model, expected: dimensions, actual: vector.length, index } },
        );
      }
    }
    return vectors.map(l2Normalize);
  }

  return {
    model: `openai:${config.model}${config.dimensions ? `@${config.dimensions}` : ''}`,
    get dimensions() {
      return dimensions;
    },
    async embed(texts: string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += config.batchSize) {
        vectors.push(
          ...(await embedBatch(texts.slice(start, start + config.batchSize), embedOptions.signal)),
        );
      }
      return vectors;
    },
  };
}

/** Validates the body and returns the vectors in input order (servers may answer out of order). */
function parseResponse(text: string, expectedCount: number, shownUrl: string): Float32Array[] {
  const invalid = (reason: string, cause?: unknown) =>
    new EngramError(
      'embedding_response_invalid',
      'unavailable',
      `Invalid embedding response from ${shownUrl}: ${reason}`,
      {
        cause,
      },
    );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid('not JSON', error);
  }
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(
      issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'unexpected shape',
      parsed.error,
    );
  }
  const vectors: Float32Array[] = [];
  for (const item of parsed.data.data) {
    if (item.index >= expectedCount || vectors[item.index])
      throw invalid(`unexpected or repeated index ${item.index}`);
    vectors[item.index] = Float32Array.from(item.embedding);
  }
  if (parsed.data.data.length !== expectedCount) {
    throw invalid(`${parsed.data.data.length} embeddings for ${expectedCount} inputs`);
  }
  return vectors;
}
