import { MemoryError } from '../core/errors';

/** The script that builds and installs pgvector for PostgreSQL 15 on a machine without it. */
export const INSTALL_PGVECTOR_SCRIPT = '/work/shared/scripts/install-pgvector.sh';

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
      'the PostgreSQL "vector" extension (pgvector) is not installed on the server: install it ' +
        `(on Debian bookworm with PostgreSQL 15, as root: ${INSTALL_PGVECTOR_SCRIPT}), ` +
        'or run CREATE EXTENSION vector as a superuser',
      options,
    );
  }
}
