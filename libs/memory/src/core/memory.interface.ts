import type { Message } from './message';

/** Cancellation for a store call; an aborted signal rejects before any write starts. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of `save`. */
export interface SaveOptions extends CallOptions {
  /**
   * Makes the save safe to retry: a save whose key the session has already seen stores nothing
   * and resolves with the first save's result (`replayed: true`). Keys are kept per session for at
   * least its last 100 keyed saves (`IDEMPOTENCY_KEY_WINDOW`), across restarts on the
   * durable stores; `clear()` forgets them. 1–255 visible ASCII characters, such as a UUID.
   */
  idempotencyKey?: string;
  /**
   * The time to record for the batch (each entry's `savedAt`) instead of now: for imports that
   * carry the time a message was first saved. An ISO 8601 date and time with a time zone, such as
   * `2026-12-04T16:01:28.000Z` or `2026-12-04T17:01:28+01:00`; stored and returned in UTC with
   * milliseconds (`Date.prototype.toISOString`). It changes no cursor and no order: the batch is
   * still appended after everything stored.
   * @throws InvalidSaveOptionError (from `save`) naming `savedAt` when it is not such a time;
   * nothing is written.
   */
  savedAt?: string;
}

/** What `save` stored: the cursors of the batch's first and last message (null for an empty batch). */
export interface SaveResult {
  first: Cursor | null;
  last: Cursor | null;
  /** True when the `idempotencyKey` was seen before: nothing was stored by this call. */
  replayed: boolean;
}

/** What an agent needs from a memory: prior context before a turn, the new messages after it. */
export interface Memory {
  /**
   * The context for the next turn: the snapshot's summary messages, then the messages after it
   * (with no snapshot, the whole retained log). Never returns a tool result whose call is missing.
   * @param query the turn's input; plain stores ignore it, semantic stores search with it.
   */
  retrieve(query?: string, opts?: CallOptions): Promise<Message[]>;
  /**
   * Appends a batch atomically and contiguously: all or nothing, with no other writer's message
   * between its messages. Validates every message (and the idempotency key) before writing anything.
   * @returns the cursors of the batch's first and last message (null for an empty batch), or, for
   * an idempotency key already seen, the first save's result with `replayed: true`.
   * @throws InvalidMessageError naming the offending path; nothing is written.
   * @throws InvalidIdempotencyKeyError for a malformed key; nothing is written.
   */
  save(messages: readonly Message[], opts?: SaveOptions): Promise<SaveResult>;
  /** Removes messages, snapshot and metadata: the session is then as if new. */
  clear(opts?: CallOptions): Promise<void>;
}

/**
 * Absolute position of a message in a session's log. Cursors strictly increase along the log and
 * stay valid while older messages are evicted or pruned; callers only compare them.
 */
export type Cursor = number;

/** A stored message with its cursor (its position in the session, from 1). */
export interface Entry {
  cursor: Cursor;
  message: Message;
  /**
   * ISO time its batch was saved (every message of one `save` shares it); absent where the store
   * does not know it, such as messages Phero wrote.
   */
  savedAt?: string;
}

/** A summary (and pinned messages, such as the task) that stands for the oldest messages. */
export interface Snapshot {
  summary: string;
  pinned?: Message[];
}

/** A snapshot as stored: what it covers, and when it was saved. */
export interface StoredSnapshot extends Snapshot {
  /** The cursor of the last message the snapshot covers. */
  upTo: Cursor;
  /** ISO 8601 time the snapshot was saved. */
  createdAt: string;
}

/** What `loadSnapshot` returns: the latest snapshot and the stored messages after it. */
export interface SnapshotState {
  snapshot: StoredSnapshot | null;
  /** The stored entries after the snapshot, as they are (no orphan filtering). */
  tail: Entry[];
}

/** A {@link Memory} that keeps snapshots: what compaction reads and writes. */
export interface SnapshotStore extends Memory {
  /** The latest snapshot and the messages after it, with their cursors. */
  loadSnapshot(opts?: CallOptions): Promise<SnapshotState>;
  /**
   * Compare-and-swap: stores `snapshot` as covering everything up to `upTo` if the latest stored
   * snapshot is still `prev` (compared by `upTo`; `null` means there is none).
   * @throws SnapshotConflictError when the latest snapshot is not `prev`.
   * @throws InvalidCursorError when `upTo` does not move past `prev.upTo` or lies beyond the last message.
   * @throws SnapshotsUnsupportedError when the store uses the deprecated `summarization` option.
   */
  saveSnapshot(
    snapshot: Snapshot,
    upTo: Cursor,
    prev: StoredSnapshot | null,
    opts?: CallOptions,
  ): Promise<StoredSnapshot>;
}

/** Small string metadata kept with a session, such as its `title`. It outlives pruning. */
export interface SessionMetadata {
  /** Sets `key` to `value`; an empty `value` removes the key. */
  setMeta(key: string, value: string): Promise<void>;
  meta(): Promise<Record<string, string>>;
}

/** Which part of the stored log `entries` returns. */
export interface EntriesQuery {
  /** Only entries with a cursor above this one. */
  after?: Cursor;
  /** At most this many entries. Default: all. */
  limit?: number;
}

/**
 * The stored log as it is, oldest first, including messages a snapshot covers but that are still
 * kept (`pruneCompacted` off): what an operator reads, not what a model is given.
 */
export interface SessionLog {
  entries(query?: EntriesQuery, opts?: CallOptions): Promise<Entry[]>;
}

/** What every store returns from `open`: messages, snapshots, metadata and the raw log of one session. */
export type SessionStore = SnapshotStore & SessionMetadata & SessionLog;
