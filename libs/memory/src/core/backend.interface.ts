import type { Cursor, SessionStore } from './memory.interface';

/** What a list of sessions shows about one session. */
export interface SessionInfo {
  id: string;
  /** Messages ever saved; it outlives pruning and eviction. */
  messages: number;
  /** Messages kept now. */
  stored: number;
  /** ISO 8601 time of the last write (messages, snapshot or metadata). */
  updatedAt: string;
  hasSnapshot: boolean;
  snapshotUpTo: Cursor | null;
  meta: Record<string, string>;
}

/** What `MemoryBackend.list` returns: page size, position and search. */
export interface ListSessionsQuery {
  /** Page size; default {@link DEFAULT_LIST_LIMIT}, at most {@link MAX_LIST_LIMIT}. */
  limit?: number;
  /** The `next` token of the previous page. */
  after?: string;
  /** Case-insensitive substring of the id or of the `title` meta. */
  search?: string;
}

/** One page of `MemoryBackend.list`, newest first. */
export interface SessionPage {
  items: SessionInfo[];
  /** Opaque token for the next page; null on the last page. */
  next: string | null;
}

/** Which store a {@link MemoryBackend} is. */
export type BackendKind = 'simple' | 'jsonfile' | 'postgres' | 'nats';

/**
 * The port between the stores and their users (the Nest module, the admin API): one object that
 * opens sessions of one kind of store and lists, inspects and deletes them.
 * Session ids are validated before any I/O (`InvalidSessionIdError`).
 */
export interface MemoryBackend {
  readonly kind: BackendKind;
  open(sessionId: string): Promise<SessionStore>;
  /** Newest `updatedAt` first, keyset-paginated. */
  list(q: ListSessionsQuery): Promise<SessionPage>;
  /** null when the session does not exist. */
  inspect(sessionId: string): Promise<SessionInfo | null>;
  delete(sessionId: string): Promise<void>;
  /** Resolves when the store is reachable; throws otherwise. */
  check(): Promise<void>;
  /** Releases what the backend opened itself (never a connection the caller passed in). */
  close(): Promise<void>;
}

/** The largest page `MemoryBackend.list` returns. */
export const MAX_LIST_LIMIT = 500;
