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
  /** Only sessions whose `resource` meta ({@link RESOURCE_META_KEY}) is exactly this value. */
  resource?: string;
}

/** The session meta key that names whose data a session is (a user, a tenant): what `erase` and `list({ resource })` match. */
export const RESOURCE_META_KEY = 'resource';

/** What `MemoryBackend.erase` removes: every session of one resource. */
export interface EraseQuery {
  /** The exact value of the sessions' `resource` meta. */
  resource: string;
}

/** What one `MemoryBackend.erase` removed; all zeros when nothing of the resource was left. */
export interface EraseResult {
  /** Sessions removed (each with its snapshot, metadata and idempotency keys). */
  sessions: number;
  /** Messages removed: those the sessions still kept (pruned ones were gone already). */
  messages: number;
  /** Recall vectors removed (0 unless the backend is wrapped by `withRecall`). */
  vectors: number;
  /** The ids of the sessions removed, for what the caller keeps elsewhere (compaction jobs). */
  sessionIds: string[];
}

/** One page of `MemoryBackend.list`, newest first. */
export interface SessionPage {
  items: SessionInfo[];
  /** Opaque token for the next page; null on the last page. */
  next: string | null;
}

/**
 * Which store a {@link MemoryBackend} is: `simple`, `jsonfile`, `postgres` or `nats` for the
 * built-in ones, any name for a store of your own (its driver's `kind`).
 */
export type BackendKind = string;

/**
 * The port between the stores and their users (the Nest module, the admin API): one object that
 * opens sessions of one kind of store and lists, inspects, deletes and erases them.
 * Session ids are validated before any I/O (`InvalidSessionIdError`).
 */
export interface MemoryBackend {
  /** Which store this is (its driver's `kind`). */
  readonly kind: string;
  open(sessionId: string): Promise<SessionStore>;
  /** Newest `updatedAt` first, keyset-paginated. */
  list(q: ListSessionsQuery): Promise<SessionPage>;
  /**
   * Removes every session whose `resource` meta equals `q.resource`, with the compaction jobs
   * the store keeps for them, each session at once and whole (a
   * save racing the erase either lands before it and is erased, or after it in a new session).
   * Idempotent: a second call returns zeros.
   * @throws InvalidQueryError (field `resource`) for an empty or unstorable value, before any I/O.
   */
  erase(q: EraseQuery): Promise<EraseResult>;
  /** null when the session does not exist. */
  inspect(sessionId: string): Promise<SessionInfo | null>;
  /**
   * Removes the session (messages, snapshot, metadata, idempotency keys). With
   * `opts.ifUnchanged`, only while it is unchanged since it was read.
   * @throws SessionChangedError when `ifUnchanged` no longer describes the session.
   */
  delete(sessionId: string, opts?: DeleteSessionOptions): Promise<void>;
  /** Resolves when the store is reachable; throws otherwise. */
  check(): Promise<void>;
  /** Releases what the backend opened itself (never a connection the caller passed in). */
  close(): Promise<void>;
}

/** Options of `MemoryBackend.delete`. */
export interface DeleteSessionOptions {
  /**
   * Delete only if the session is still as this description (what `inspect` or `list` returned)
   * says: compared field by field ({@link sameSessionState}) with the session as stored, under the
   * store's own lock or compare-and-swap, so no write can land between the check and the delete.
   * When anything differs (or the session is gone) nothing is deleted and `delete` throws
   * `SessionChangedError`. What deletes after reading (retention) passes it, so a write that
   * lands after the judgement survives.
   */
  ifUnchanged?: SessionInfo;
}

/** The largest page `MemoryBackend.list` returns. */
export const MAX_LIST_LIMIT = 500;
