/** Cancellation for an embedding call. */
export interface EmbedOptions {
  signal?: AbortSignal;
}

/**
 * Turns texts into vectors of a fixed length. Implementations: `OpenAiCompatibleEmbedder` (an
 * HTTP embeddings API), `UniversalSentenceEmbedder` (offline, semantic), `HashedNgramEmbedder`
 * (offline, lexical, for tests).
 */
export interface Embedder {
  /** The model's name, recorded for operators (such as `text-embedding-3-small`). */
  readonly model: string;
  /** The length of every vector `embed` returns. */
  readonly dimensions: number;
  /**
   * One vector per text, in the same order. An empty list resolves to an empty list.
   * @throws EmbeddingFailedError when the model fails; the signal's reason when aborted.
   */
  embed(texts: readonly string[], opts?: EmbedOptions): Promise<number[][]>;
}
