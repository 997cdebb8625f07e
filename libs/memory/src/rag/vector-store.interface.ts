import type { Cursor } from '../core/memory.interface';

/** A JSON value kept with a vector and handed back with each hit. */
export type VectorPayload = Record<string, unknown>;

/** One vector and what it stands for. */
export interface VectorRecord {
  /** Unique within the store; upserting the same id replaces the record. */
  id: string;
  vector: readonly number[];
  /** The session the text came from (null for documents outside sessions). */
  session: string | null;
  /** The resource (user, tenant…) the text belongs to, when known. */
  resource: string | null;
  /** The message's cursor in its session's log (null for documents). */
  cursor: Cursor | null;
  /** Whatever the caller needs back with a hit (text, role, time…). */
  payload?: VectorPayload;
}

/** One result of a query: the record (without its vector) and its cosine similarity. */
export interface VectorHit {
  id: string;
  /** Cosine similarity in [-1, 1]; higher is closer. */
  score: number;
  session: string | null;
  resource: string | null;
  cursor: Cursor | null;
  payload: VectorPayload;
}

/** Which records a query or a delete applies to; every given field must match. */
export interface VectorFilter {
  session?: string;
  resource?: string;
  /** Leaves out the records of session `session` whose cursor is at or above `fromCursor`. */
  exclude?: { session: string; fromCursor: Cursor };
}

/**
 * Vectors and their records: `InMemoryVectorStore` (exact) or `PgVectorStore` (pgvector, HNSW).
 * A store holds vectors of one length (`dimensions`); a vector of another length is refused with
 * `DimensionMismatchError` before anything is written.
 */
export interface VectorStore {
  readonly dimensions: number;
  /** Inserts or replaces records by id, all or nothing. */
  upsert(records: readonly VectorRecord[]): Promise<void>;
  /** The `k` records nearest to `vector` (cosine) that match `filter`, nearest first. */
  query(vector: readonly number[], k: number, filter?: VectorFilter): Promise<VectorHit[]>;
  /**
   * Removes every record matching `filter`; resolves with how many it removed.
   * @throws RangeError when the filter names neither a session nor a resource (it would wipe the store).
   */
  delete(filter: VectorFilter): Promise<number>;
  /** The highest cursor stored for `session`, or null when it has none (for catching up). */
  lastCursor(session: string): Promise<Cursor | null>;
  /** Releases what the store opened itself. */
  close(): Promise<void>;
}
