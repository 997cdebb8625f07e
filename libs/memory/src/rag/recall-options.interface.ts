import type { Embedder } from './embedder.interface';
import type { VectorStore } from './vector-store.interface';

/** Semantic recall over the kept log (`recall` on a backend or on `MemoryModule.forRoot`). */
export interface RecallOptions {
  /** Turns messages and queries into vectors; its `dimensions` must equal the store's. */
  embedder: Embedder;
  /** Where the message vectors live. Share one store across backends only with distinct session ids. */
  store: VectorStore;
  /** Messages found per query (before their neighbours are added). Default 4. */
  topK?: number;
  /** Neighbours quoted on each side of a found message. Default 1. */
  messageRange?: number;
  /**
   * `session` (default): recall from the same session only. `resource`: from every session with
   * the same resource (the `resourceMetaKey` meta field, such as the user); a session without it
   * recalls from itself only.
   */
  scope?: 'session' | 'resource';
  /** Found messages below this cosine similarity are left out. Default: none. */
  minScore?: number;
  /** The session meta field that names its resource. Default `resource`. */
  resourceMetaKey?: string;
  /** Also embed tool results and assistant tool calls' text. Default false (user and assistant text only). */
  includeToolMessages?: boolean;
  /** Index what is not indexed yet, for every session, when the backend is wrapped. Default true. */
  catchUpOnStart?: boolean;
  /** Wait before retrying a failed indexing job (ms); it doubles per failure up to 60 s. Default 1000. */
  retryDelayMs?: number;
  /**
   * The one deadline of a query's embedding (ms), retries and `Retry-After` waits included. Past
   * it (or when the embedder fails), `retrieve(query)` returns the context without recall and
   * `recall()` throws `EmbeddingFailedError`. Default 2000.
   */
  queryTimeoutMs?: number;
  /**
   * Called with every failed indexing job (`operation` `index`; it is retried, `sessionId` null for
   * the start-up catch-up) and every query whose embedding failed or passed `queryTimeoutMs`
   * (`query`); default: nothing.
   */
  onError?: (error: unknown, sessionId: string | null, operation: RecallOperation) => void;
  /**
   * @deprecated Not used: recall quotes the time a message was saved, as its store reports it
   * (`Entry.savedAt`), and no time where the store does not know it.
   */
  now?: () => Date;
}

/** What recall was doing when it failed: indexing saved messages, or embedding a query. */
export type RecallOperation = 'index' | 'query';

/** {@link RecallOptions} with defaults filled in and checked. */
export type ResolvedRecallOptions = Required<Omit<RecallOptions, 'minScore'>> & {
  minScore: number | null;
};
