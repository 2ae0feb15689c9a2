import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { runSteps } from '../../core/assembly/history-units.js';
import { EngramError, parseWith } from '../../core/errors.js';
import { drainInSlices } from '../../core/event-loop-slicer.js';
import type { EmbeddingProvider, EmbedOptions } from './embedding-provider.js';
import { addHashedWordVectorSteps } from './hashed-word-vector.js';
import { l2Normalize } from './l2-normalize.js';
import { STOPWORDS } from './stopwords.js';
import { tokenizeWords } from './tokenize-words.js';
import { addDequantizedRow } from './vector-quantization.js';
import { decodeWordVectorFile, type WordVectorFile } from './word-vector-file.js';

/**
 * Revision of the pooling below (tokenizer, stopwords, weights, out-of-vocabulary hashing). It is part
 * of the model id: bump it whenever a change alters any output vector, so stored vectors get re-embedded.
 */
const POOLING_REVISION = 'sif1';

/**
 * Characters past which a text is embedded in event-loop slices: a text without spaces is one
 * out-of-vocabulary "word" whose trigrams alone cost about 0.5 ms a thousand characters.
 */
const SLICED_TEXT_CHARS = 2_000;

/** SIF smoothing `a` (Arora et al. 2017 recommend 1e-3 to 1e-4). */
const SIF_A = 1e-3;

/**
 * Zipf's law: the word of rank r (1-based) has probability ≈ 1 / (r · H_V), H_V ≈ ln V + γ being the
 * harmonic number of the vocabulary the ranks come from (GloVe 6B, V = 400k words).
 */
const ZIPF_NORMALIZER = Math.log(400_000) + 0.5772;

const optionsSchema = z.object({
  /** The word-vector file; defaults to the one shipped beside this module. */
  path: z.union([z.string().min(1), z.instanceof(URL)]).optional(),
});

/** Options of {@link createStaticEmbeddingProvider}. */
export type StaticEmbeddingProviderOptions = z.input<typeof optionsSchema>;

/**
 * Loads the shipped static word vectors (see docs/embeddings.md) and returns an offline provider:
 * no network, nothing downloaded. A text embeds as the SIF-weighted average of its content words'
 * vectors, L2-normalized. A text without any word (empty, whitespace, punctuation) embeds as the
 * all-zero vector, whose dot product with every vector is 0.
 */
export async function createStaticEmbeddingProvider(
  options: StaticEmbeddingProviderOptions = {},
): Promise<EmbeddingProvider> {
  const { path = new URL('./data/word-vectors.bin', import.meta.url) } = parseWith(
    optionsSchema,
    options,
    'static embedding provider options',
  );
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new EngramError('word_vectors_unreadable', 'unavailable', `Cannot read word vectors at ${path}`, {
      cause: error,
    });
  }
  return new StaticEmbeddingProvider(decodeWordVectorFile(bytes));
}

class StaticEmbeddingProvider implements EmbeddingProvider {
  readonly model: string;
  readonly dimensions: number;
  readonly #file: WordVectorFile;
  readonly #rankByWord: Map<string, number>;

  constructor(file: WordVectorFile) {
    this.#file = file;
    this.model = `static:${file.label}:${POOLING_REVISION}`;
    this.dimensions = file.dimensions;
    this.#rankByWord = new Map(file.words.map((word, rank) => [word, rank]));
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    const vectors: Float32Array[] = [];
    for (const text of texts) {
      // A long text lets other requests run while it is embedded; a short one costs microseconds.
      const steps = this.#embedSteps(text);
      vectors.push(text.length > SLICED_TEXT_CHARS ? await drainInSlices(steps) : runSteps(steps));
    }
    return vectors;
  }

  *#embedSteps(text: string): Generator<void, Float32Array> {
    const tokens = tokenizeWords(text);
    const contentWords = tokens.filter((token) => !STOPWORDS.has(token));
    // A text made only of function words ("is it?") still deserves a vector from them.
    const pooled = contentWords.length > 0 ? contentWords : tokens;
    const sum = new Float32Array(this.dimensions);
    for (const word of pooled) yield* this.#addWord(word, sum);
    return l2Normalize(sum);
  }

  *#addWord(word: string, sum: Float32Array): Generator<void, void> {
    const rank = this.#rankByWord.get(word);
    if (rank !== undefined) {
      addDequantizedRow(this.#file, rank, this.#file.bits, sifWeight(rank), sum);
      return;
    }
    const parts = word.split(/['-]/);
    if (parts.length > 1) {
      // An unknown compound ("re-embedding") falls back to its known parts.
      for (const part of parts) if (!STOPWORDS.has(part)) yield* this.#addWord(part, sum);
      return;
    }
    // Unknown words are rarer than every known one: weight them as the rarest known word.
    const weight = sifWeight(this.#file.words.length);
    yield* addHashedWordVectorSteps(word, this.#file.outOfVocabularyNorm, weight, sum);
  }
}

/** SIF weight a / (a + p(w)) with p(w) estimated from the 0-based frequency rank by Zipf's law. */
function sifWeight(rank: number): number {
  const probability = 1 / ((rank + 1) * ZIPF_NORMALIZER);
  return SIF_A / (SIF_A + probability);
}
