import crypto from 'node:crypto';
import { z } from 'zod';
import { EngramError, parseWith } from '../../core/errors.js';
import { LruMap } from '../../core/lru-map.js';
import type { EmbeddingProvider, EmbedOptions } from './embedding-provider.js';

const optionsSchema = z.object({
  /** Vectors kept; the least recently used is evicted first. */
  maxEntries: z.number().int().positive().max(10_000_000).default(10_000),
});

/** SHA-256 in base64; the one-shot `crypto.hash` (Node ≥ 20.12) takes half the time of a `Hash` object. */
const sha256 =
  typeof crypto.hash === 'function'
    ? (text: string) => crypto.hash('sha256', text, 'base64')
    : (text: string) => crypto.createHash('sha256').update(text).digest('base64');

/** Options of {@link withEmbeddingCache}. */
export type EmbeddingCacheOptions = z.input<typeof optionsSchema>;

/**
 * Wraps a provider with an in-memory LRU cache keyed by sha256(model + NUL + text): only texts not
 * cached are sent to `provider`, each once even when repeated within a call or asked for by another
 * call while it is being embedded, and the output keeps the input order. The model is part of the
 * key, so a provider whose identity changes never serves stale vectors. Callers get copies, so
 * mutating a result cannot corrupt the cache.
 */
export function withEmbeddingCache(
  provider: EmbeddingProvider,
  options: EmbeddingCacheOptions = {},
): EmbeddingProvider {
  const { maxEntries } = parseWith(optionsSchema, options, 'embedding cache options');
  const cache = new LruMap<string, Float32Array>(maxEntries);
  // Texts being embedded now: a turn's sources search with the same text at once, and each would
  // otherwise embed it again (a remote provider: one request per source).
  const pending = new Map<string, Promise<Float32Array>>();

  function embedMissing(missing: Map<string, string>, embedOptions: EmbedOptions, model: string) {
    const batch = provider.embed([...missing.values()], embedOptions).then((vectors) => {
      if (vectors.length !== missing.size) {
        throw new EngramError(
          'embedding_count_mismatch',
          'internal',
          `${model} returned ${vectors.length} vectors for ${missing.size} texts`,
        );
      }
      // A custom provider's answer is checked once here, before anything stores it: a vector of
      // another length (or not a Float32Array) would be stored and compared with the others.
      const dimensions = provider.dimensions;
      for (const vector of vectors) {
        if (!(vector instanceof Float32Array) || (dimensions > 0 && vector.length !== dimensions)) {
          throw new EngramError(
            'embedding_dimensions_mismatch',
            'internal',
            `${model} returned a vector of ${vector instanceof Float32Array ? `${vector.length} floats` : 'another type than Float32Array'}; it declares ${dimensions} dimensions`,
          );
        }
      }
      return vectors;
    });
    for (const [index, key] of [...missing.keys()].entries()) {
      const vector = batch.then((vectors) => {
        const value = vectors[index] as Float32Array;
        cache.set(key, value);
        return value;
      });
      pending.set(key, vector);
      const forget = () => {
        if (pending.get(key) === vector) pending.delete(key);
      };
      vector.then(forget, forget);
    }
  }

  async function embed(texts: string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
    const model = provider.model;
    const keys = texts.map((text) => sha256(`${model}\0${text}`));
    const found = new Map<string, Float32Array | Promise<Float32Array>>();
    const missing = new Map<string, string>();
    for (const [index, key] of keys.entries()) {
      if (found.has(key) || missing.has(key)) continue;
      const known = cache.get(key) ?? pending.get(key);
      if (known) found.set(key, known);
      else missing.set(key, texts[index] ?? '');
    }
    if (missing.size > 0) {
      embedMissing(missing, embedOptions, model);
      for (const key of missing.keys()) found.set(key, pending.get(key) as Promise<Float32Array>);
    }
    const vectors = await Promise.all(
      keys.map((key) => found.get(key) as Float32Array | Promise<Float32Array>),
    );
    return vectors.map((vector) => vector.slice());
  }

  return {
    get model() {
      return provider.model;
    },
    get dimensions() {
      return provider.dimensions;
    },
    embed,
  };
}
