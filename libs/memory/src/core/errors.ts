/**
 * The errors the library raises on purpose extend {@link MemoryError} and carry a stable `code`,
 * so callers (and the admin API) can branch on it without matching message text. The ones that
 * do not, and why:
 * - `TypeError` / `RangeError` from option checks (`MemoryModule.forRoot`, the backend factories,
 *   constructors): a programming mistake found at start-up, named in the message, not a condition
 *   to branch on.
 * - `CompactionWorkerError`: it carries a worker's error across NATS, and its `code` is the
 *   worker-side code (any {@link MemoryErrorCode}, or none), so it cannot have one of its own.
 * - A caller's abort rejects with the signal's reason, whatever the caller made it.
 * - Plain `Error`s while decoding stored data never leave the library: the stores wrap them in
 *   {@link CorruptSessionError} (their text becomes its detail).
 */
export type MemoryErrorCode =
  | 'SNAPSHOT_CONFLICT'
  | 'INVALID_CURSOR'
  | 'SNAPSHOTS_UNSUPPORTED'
  | 'CONCURRENT_UPDATE'
  | 'SESSION_CHANGED'
  | 'SESSION_TOO_LARGE'
  | 'INVALID_MESSAGE'
  | 'INVALID_SESSION_ID'
  | 'CORRUPT_SESSION'
  | 'SESSION_SAVE_FAILED'
  | 'BACKEND_UNAVAILABLE'
  | 'INVALID_IDEMPOTENCY_KEY'
  | 'INVALID_SAVE_OPTION'
  | 'INVALID_QUERY'
  | 'INVALID_META'
  | 'BACKEND_ERROR'
  | 'DIMENSION_MISMATCH'
  | 'EMBEDDING_FAILED'
  | 'VECTOR_EXTENSION_MISSING'
  | 'LLM_REQUEST_FAILED'
  | 'HEALTH_TIMEOUT'
  | 'COMPACTION_SHUTDOWN'
  | 'COMPACTION_UNANSWERED'
  | 'STORAGE_FULL'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'INVALID_IMPORT_LINE'
  | 'IMPORT_CONFLICT'
  | 'IMPORT_INCOMPLETE'
  | 'THREAD_MESSAGES_MISSING';

/** The base of the library's errors: `code` says which one, the message says what and why. */
export abstract class MemoryError extends Error {
  abstract readonly code: MemoryErrorCode;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The latest stored snapshot is not the `prev` the caller based its snapshot on. */
export class SnapshotConflictError extends MemoryError {
  readonly code = 'SNAPSHOT_CONFLICT';
  constructor(
    readonly session: string,
    readonly expectedUpTo: number | null,
    readonly actualUpTo: number | null,
  ) {
    super(
      `snapshot conflict on session "${session}": expected the latest snapshot to cover up to ` +
        `${expectedUpTo ?? 'nothing'}, but it covers up to ${actualUpTo ?? 'nothing'}; reload and retry`,
    );
  }
}

/** A snapshot's `upTo` does not move past the previous snapshot or lies beyond the last message. */
export class InvalidCursorError extends MemoryError {
  readonly code = 'INVALID_CURSOR';
  constructor(
    readonly session: string,
    readonly cursor: number,
    reason: string,
  ) {
    super(`invalid cursor ${cursor} for session "${session}": ${reason}`);
  }
}

/**
 * The store has the deprecated `summarization` option, which writes the session's snapshots
 * itself, so `saveSnapshot` (compaction) is refused.
 */
export class SnapshotsUnsupportedError extends MemoryError {
  readonly code = 'SNAPSHOTS_UNSUPPORTED';
  constructor(readonly session: string) {
    super(
      `session "${session}" uses the deprecated "summarization" option, which writes the ` +
        "session's snapshots itself; saveSnapshot cannot be combined with it (remove " +
        '"summarization" and use compaction instead)',
    );
  }
}

/** The session kept changing under every compare-and-swap attempt; nothing was stored. */
export class ConcurrentUpdateError extends MemoryError {
  readonly code = 'CONCURRENT_UPDATE';
  constructor(
    readonly session: string,
    readonly attempts: number,
  ) {
    super(
      `session "${session}" changed during each of ${attempts} write attempts; nothing was stored`,
    );
  }
}

/**
 * A conditional delete (`MemoryBackend.delete` with `ifUnchanged`) found the session changed since
 * the caller read it (a save, a snapshot or a metadata write came between): nothing was deleted.
 */
export class SessionChangedError extends MemoryError {
  readonly code = 'SESSION_CHANGED';
  constructor(readonly session: string) {
    super(
      `session "${session}" changed since it was read; nothing was deleted (read it again and decide anew)`,
    );
  }
}

/** The encoded session would exceed what the store can hold in one value; nothing was sent. */
export class SessionTooLargeError extends MemoryError {
  readonly code = 'SESSION_TOO_LARGE';
  constructor(
    readonly session: string,
    /** Encoded size in bytes. */
    readonly size: number,
    /** The limit in bytes. */
    readonly limit: number,
  ) {
    super(
      `session "${session}" would be ${size} bytes, over the limit of ${limit} bytes; nothing was ` +
        'stored (compact the session, clear it, or use a store that keeps one row per message)',
    );
  }
}

/** A message does not match the message model; `path` names the offending field. */
export class InvalidMessageError extends MemoryError {
  readonly code = 'INVALID_MESSAGE';
  constructor(
    /** Where the problem is, such as `messages[3].parts[0].type`. */
    readonly path: string,
    readonly reason: string,
  ) {
    super(`invalid message at ${path}: ${reason}`);
  }
}

/** An `idempotencyKey` save option that is not 1–255 visible ASCII characters; nothing was read or written. */
export class InvalidIdempotencyKeyError extends MemoryError {
  readonly code = 'INVALID_IDEMPOTENCY_KEY';
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`invalid idempotency key ${JSON.stringify(key.slice(0, 64))}: ${reason}`);
  }
}

/** A `save` option other than the key that cannot be used (`option` names it, such as `savedAt`); nothing was written. */
export class InvalidSaveOptionError extends MemoryError {
  readonly code = 'INVALID_SAVE_OPTION';
  constructor(
    /** The option at fault, such as `savedAt`. */
    readonly option: string,
    reason: string,
  ) {
    super(`invalid save option ${option}: ${reason}`);
  }
}

/**
 * A list query the backend cannot use: a `next` token it did not make (`field` is `after`) or a
 * page size out of range (`limit`). Nothing was read.
 */
export class InvalidQueryError extends MemoryError {
  readonly code = 'INVALID_QUERY';
  constructor(
    /** The query field at fault: `after` or `limit`. */
    readonly field: string,
    reason: string,
  ) {
    super(`invalid ${field}: ${reason}`);
  }
}

/**
 * A metadata key or value a store cannot keep: an empty key, a key such as `__proto__`, or text
 * holding a NUL character or a lone surrogate. Nothing was written.
 */
export class InvalidMetaError extends MemoryError {
  readonly code = 'INVALID_META';
  constructor(
    /** The metadata key at fault (cut to 64 characters). */
    readonly key: string,
    reason: string,
  ) {
    super(`invalid metadata ${JSON.stringify(key.slice(0, 64))}: ${reason}`);
  }
}

/** A session id that is not 1–128 characters of dot-separated `[A-Za-z0-9_=-]` tokens. */
export class InvalidSessionIdError extends MemoryError {
  readonly code = 'INVALID_SESSION_ID';
  constructor(
    readonly sessionId: string,
    reason: string,
  ) {
    super(`invalid session id ${JSON.stringify(sessionId)}: ${reason}`);
  }
}

/** Stored data no longer decodes. The store never overwrites it; only `clear()` or `delete` removes it. */
export class CorruptSessionError extends MemoryError {
  readonly code = 'CORRUPT_SESSION';
  constructor(
    readonly session: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `session "${session}" holds data that does not decode (${detail}); it was left untouched: ` +
        'repair it by hand, or clear or delete the session',
      options,
    );
  }
}

/** A turn's answer was produced but its messages could not be stored; `cause` holds the store's error. */
export class SessionSaveFailedError extends MemoryError {
  readonly code = 'SESSION_SAVE_FAILED';
  constructor(
    readonly session: string,
    cause: unknown,
  ) {
    super(
      `the turn's messages could not be saved to session "${session}": ${describeCause(cause)}`,
      { cause },
    );
  }
}

/**
 * A request to the store's server failed for a reason of the connection or the server (it is
 * unreachable, timed out, dropped the connection, or lacks its tables), not because of the
 * session's data; retry once it is back. `cause` holds the client's error. The PostgreSQL and
 * NATS stores raise subclasses carrying the driver's code.
 */
export class BackendUnavailableError extends MemoryError {
  readonly code = 'BACKEND_UNAVAILABLE';
  /**
   * The message without the client's text (which names hosts and ports): what may be shown to
   * an API client or logged above debug level, such as `PostgreSQL request failed: save of
   * session "s1"`.
   */
  readonly summary: string;
  constructor(
    /** Which store, for the message: `PostgreSQL`, `NATS`. */
    readonly store: string,
    /** What was being done, such as `save`. */
    readonly operation: string,
    readonly session: string | null,
    cause: unknown,
    /** Appended to the message: what to check. */
    hint = '',
  ) {
    const what = session === null ? operation : `${operation} of session "${session}"`;
    super(`${store} request failed: ${what}: ${describeCause(cause)}${hint}`, { cause });
    this.summary = `${store} request failed: ${what}`;
  }

  /** The client's error code (`ECONNREFUSED`, a SQLSTATE, `TIMEOUT`), when it gave one. */
  get causeCode(): string | undefined {
    const code = (this.cause as { code?: unknown } | null | undefined)?.code;
    return typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
  }
}

/**
 * The store's server refused a request for a reason that retrying will not fix (a constraint, a
 * value it cannot store, a bug): not an outage. The message names the store, the operation and the
 * server's error code, never the server's own text (it may quote stored data); `cause` holds the
 * client's error for the log. The admin API answers it with 500.
 */
export class BackendError extends MemoryError {
  readonly code = 'BACKEND_ERROR';
  constructor(
    /** Which store, for the message: `PostgreSQL`, `NATS`. */
    readonly store: string,
    /** What was being done, such as `save`. */
    readonly operation: string,
    readonly session: string | null,
    /** The server's error code (a SQLSTATE for PostgreSQL), when it gave one. */
    readonly serverCode: string | undefined,
    cause: unknown,
  ) {
    const what = session === null ? operation : `${operation} of session "${session}"`;
    const code = serverCode ? ` with error code ${serverCode}` : '';
    super(`${store} refused the request${code}: ${what} (details in the server log)`, { cause });
  }
}

/**
 * Compaction is shutting down: a new job was refused, a queued job was cancelled before it ran,
 * or a running one was aborted once the shutdown grace was over.
 */
export class CompactionShutdownError extends MemoryError {
  readonly code = 'COMPACTION_SHUTDOWN';
}

/**
 * The disk or quota under the store is full (`ENOSPC`, `EDQUOT`, `EFBIG`): nothing of the write
 * was stored, and whatever it had started was taken back. Free space, then retry.
 */
export class StorageFullError extends MemoryError {
  readonly code = 'STORAGE_FULL';
  constructor(
    /** What was being done, such as `save`. */
    readonly operation: string,
    readonly session: string | null,
    cause: unknown,
  ) {
    const what = session === null ? operation : `${operation} of session "${session}"`;
    super(`storage is full: ${what} stored nothing; free space and retry`, { cause });
  }
}

/**
 * An idempotency key the session has already seen came with other messages than its first save:
 * nothing was stored. A retry must send the same batch; new content needs a new key.
 */
export class IdempotencyKeyReusedError extends MemoryError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
  constructor(
    readonly session: string,
    readonly idempotencyKey: string,
  ) {
    super(
      `idempotency key "${idempotencyKey}" of session "${session}" was already used for other ` +
        'messages; nothing was stored (use a new key for new content)',
    );
  }
}

/**
 * A line of a JSON Lines import that is not a session: bad JSON, a missing or malformed field, or
 * a line over the length limit. Sessions on earlier lines were imported; nothing of this one was.
 */
export class InvalidImportLineError extends MemoryError {
  readonly code = 'INVALID_IMPORT_LINE';
  constructor(
    /** The line's number in the input, from 1. */
    readonly line: number,
    /** The field at fault, such as `entries[2].message.role`, or `(line)` for the line itself. */
    readonly field: string,
    readonly reason: string,
  ) {
    super(`import line ${line}, field ${field}: ${reason}`);
  }
}

/**
 * An imported session that the target store already holds with other content (other messages,
 * or another snapshot): it was left as it is. Sessions on earlier lines were imported.
 */
export class ImportConflictError extends MemoryError {
  readonly code = 'IMPORT_CONFLICT';
  constructor(
    readonly session: string,
    /** The line's number in the input, from 1. */
    readonly line: number,
    reason: string,
  ) {
    super(
      `import line ${line}: session "${session}" already exists with other content (${reason}); ` +
        'it was left unchanged (delete it or import into another store)',
    );
  }
}

/** How much of one session an import stopped in the middle of had reached the target store. */
export interface ImportedPart {
  /** Messages of the line the target holds, from the first. */
  messages: number;
  /** Messages the line holds (with the placeholder for pruned ones, when there is one). */
  totalMessages: number;
  /** Whether the line's snapshot is stored (true for a line without one). */
  snapshot: boolean;
}

/**
 * An import stopped inside one session: the store failed (`cause`, such as `StorageFullError` or
 * `SessionTooLargeError`) after part of the session was stored. The message says exactly what the
 * target holds of it; its metadata (and so its `resource`) was written first, so the part is
 * listed, erased and deleted like any session. Sessions on earlier lines were imported. Running
 * the same import again once the cause is fixed completes the session, storing nothing twice.
 */
export class ImportIncompleteError extends MemoryError {
  readonly code = 'IMPORT_INCOMPLETE';
  constructor(
    readonly session: string,
    /** The line's number in the input, from 1. */
    readonly line: number,
    readonly part: ImportedPart,
    /** Sessions imported (or already held) on the lines before it. */
    readonly sessionsBefore: number,
    cause: unknown,
  ) {
    const snapshot = part.snapshot ? '' : ', not its snapshot';
    const before = `${sessionsBefore} ${sessionsBefore === 1 ? 'session' : 'sessions'}`;
    super(
      `import line ${line}: session "${session}" is stored in part (its metadata and ` +
        `${part.messages} of ${part.totalMessages} messages${snapshot}) because the store ` +
        `failed: ${describeCause(cause)}; the lines before it are imported (${before}). Fix ` +
        'the cause and run the same import again to complete it, or delete the session.',
      { cause },
    );
  }
}

/** A cause for another error's message: never a driver's text naming hosts and ports. */
function describeCause(cause: unknown): string {
  if (cause instanceof BackendUnavailableError) return cause.summary;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * A LangGraph checkpoint refers to messages its thread's session no longer holds: the session
 * was cleared, or its `keep-log` metadata removed and the messages pruned.
 */
export class ThreadMessagesMissingError extends MemoryError {
  readonly code = 'THREAD_MESSAGES_MISSING';
  constructor(
    readonly session: string,
    readonly checkpointId: string,
    /** The first cursor asked for that the session does not hold. */
    readonly cursor: number,
  ) {
    super(
      `checkpoint "${checkpointId}" of thread "${session}" refers to message ${cursor} of the ` +
        "thread's session, which no longer holds it (was the session cleared, or its keep-log " +
        'metadata removed and the session pruned?)',
    );
  }
}
