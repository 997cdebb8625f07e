import { MemoryError } from '../core/errors';

/**
 * A vector's length is not the dimensions of the embedder or store it meets. Raised before
 * anything is written.
 */
export class DimensionMismatchError extends MemoryError {
  readonly code = 'DIMENSION_MISMATCH';
  constructor(
    /** What holds the expected size, such as `vector store "memory_vectors"`. */
    readonly where: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(
      `dimension mismatch: ${where} holds ${expected}-dimensional vectors, got ${actual}; ` +
        'use an embedder with the same dimensions, or a store (table) of its own for this embedder',
    );
  }
}

/** An embedding request failed (after its retries) or answered something that is not embeddings. */
export class EmbeddingFailedError extends MemoryError {
  readonly code = 'EMBEDDING_FAILED';
  constructor(
    readonly model: string,
    reason: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`embedding with model "${model}" failed: ${reason}`, options);
  }
}

/** The PostgreSQL server has no `vector` extension to create. */
export class VectorExtensionMissingError extends MemoryError {
  readonly code = 'VECTOR_EXTENSION_MISSING';
  constructor(options?: { cause?: unknown }) {
    super(
      'the PostgreSQL "vector" extension (pgvector) is not available to this user: install ' +
        "pgvector on the server for its PostgreSQL version (your distribution's pgvector " +
        'package, or built from source), then run CREATE EXTENSION vector as a superuser',
      options,
    );
  }
}
