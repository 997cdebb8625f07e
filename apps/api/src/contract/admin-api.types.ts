/**
 * The JSON shapes of the admin API, for the server and the dashboard alike. Types only (and
 * `import type` only), so the browser bundle can import this file without loading server code.
 */
import type {
  CompactionJob,
  CompactionJobError,
  CompactionJobState,
  CompactionResult,
  Cursor,
  Entry,
  SaveResult,
  SessionInfo,
  SessionPage,
  StoredSnapshot,
} from '@agent-memory/memory';

export type { SessionInfo, SessionPage, StoredSnapshot, Entry, Cursor };

/** `GET /api/sessions/:id`. */
export interface SessionDetail extends SessionInfo {
  snapshot: StoredSnapshot | null;
  /** Tokens of the context `retrieve()` returns now. */
  tokens: number;
  /** `COMPACT_AT_TOKENS`: the context size in tokens that triggers compaction. */
  compactAt: number;
}

/** One message of `GET /api/sessions/:id/messages`; `covered` when `cursor <= snapshot.upTo`. */
export interface CoveredEntry extends Entry {
  covered: boolean;
}

/** `GET /api/sessions/:id/messages?after&limit`: oldest first; `next` is the cursor for `after`. */
export interface MessagesPage {
  items: CoveredEntry[];
  next: Cursor | null;
}

/**
 * `POST /api/sessions/:id/messages` (201): what the save stored, as `save` returned it. A retry
 * with the same `Idempotency-Key` answers the same, with `replayed: true`.
 */
export interface AppendResult extends SaveResult {
  /** Messages the save stored (for a replay: what the first request stored). */
  appended: number;
}

/** `POST /api/sessions/:id/compact` (202). */
export interface CompactAccepted {
  jobId: string;
}

/** `GET /api/compactions/:jobId` is a `CompactionJob` (state, result once done, error once failed). */
export type { CompactionJob, CompactionJobError, CompactionJobState, CompactionResult };

/** The body of every error. */
export interface ApiErrorBody {
  statusCode: number;
  /** Stable machine-readable code, such as `INVALID_MESSAGE` or `SESSION_NOT_FOUND`. */
  code: string;
  message: string;
  /** For validation errors: the offending field, such as `messages[0].role`. */
  field?: string;
}
