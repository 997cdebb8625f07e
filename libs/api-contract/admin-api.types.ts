/**
 * The JSON shapes of the admin API, for the server and the dashboard alike. Types only (and
 * `import type` only), so the browser bundle can import this file without loading server code.
 */
import type {
  BackendKind,
  CompactionJob,
  CompactionJobError,
  CompactionJobState,
  CompactionResult,
  Cursor,
  Entry,
  SaveResult,
  Message,
  SessionInfo,
  SessionPage,
  StoredSnapshot,
} from '@agent-memory/memory';

export type { SessionInfo, SessionPage, StoredSnapshot, Entry, Cursor, Message, BackendKind };

/** `GET /api/sessions/:id`. */
export interface SessionDetail extends SessionInfo {
  snapshot: StoredSnapshot | null;
  /** Tokens of the context `retrieve()` returns now. */
  tokens: number;
  /** `COMPACT_AT_TOKENS`: the context size in tokens that triggers compaction. */
  compactAt: number;
  /**
   * The last compaction that compacted, failed or was asked for (forced or a dry run), from any
   * replica, kept for `COMPACTION_JOB_TTL_MS`; null when none. Read by the dashboard.
   */
  lastCompaction: CompactionJob | null;
}

/** `DELETE /api/resources/:resource`: what erasing one resource's data removed. */
export interface EraseReceipt {
  /** The resource erased: the `resource` meta value its sessions had. */
  resource: string;
  /** Sessions removed, each with its messages, snapshot, metadata, idempotency keys and compaction jobs. */
  sessions: number;
  /** Messages removed (those the sessions still kept). */
  messages: number;
  /** Recall vectors removed (0 without recall). */
  vectors: number;
  /** ISO 8601 time the erase finished. */
  erasedAt: string;
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

/** `GET /api/info`: what the dashboard's header shows about this server. */
export interface ServerInfo {
  backend: BackendKind;
  compaction: {
    mode: 'inline' | 'nats';
    /** `COMPACT_AT_TOKENS`: the context size in tokens that triggers compaction. */
    thresholdTokens: number;
    /** `COMPACT_KEEP_RECENT`: messages a compaction keeps verbatim. */
    keepRecent: number;
    /** Which summariser compaction runs: the configured LLM, or the offline extractive one. */
    summarizer: 'llm' | 'extractive';
    /** `LLM_MODEL` when the summariser is the LLM, else null. */
    model: string | null;
  };
  /** Semantic recall (`MEMORY_RECALL_*`); null when the server runs without it. */
  recall: {
    embedder: 'hashed' | 'offline' | 'openai';
    store: 'memory' | 'pgvector';
    topK: number;
    scope: 'session' | 'resource';
  } | null;
  /** The token this request was signed in with. */
  token: TokenIdentity;
}

/**
 * What an admin token may do: `viewer` reads; `operator` also appends messages, edits metadata,
 * compacts and clears; `admin` may do everything (delete, erase, import, retention, audit log).
 */
export type AdminRole = AdminRoleOrder[number];

/**
 * Every role, weakest first: each may do what the ones before it may. The one definition of the
 * order: the server's list is typed by it, and `GET /api/roles` serves it to the dashboard.
 */
export type AdminRoleOrder = readonly ['viewer', 'operator', 'admin'];

/** One admin API route and the weakest role a token needs to call it. */
export interface RouteRoleView {
  /** Upper-case HTTP method, such as `DELETE`. */
  method: string;
  /** The route's pattern as declared, such as `/api/sessions/:id`. */
  pattern: string;
  /** The weakest role allowed: this one and those after it in {@link RoleTable.roles}. */
  role: AdminRole;
}

/** `GET /api/roles`: the role order and every admin API route with the role it needs. */
export interface RoleTable {
  /** Every role, weakest first. */
  roles: AdminRoleOrder;
  /** Every route under `/api` the bearer-token gate checks, from the controllers' own decorators. */
  routes: RouteRoleView[];
}

/** Who a bearer token is: its configured name and role (`MEMORY_ADMIN_TOKEN` is `admin`, an admin). */
export interface TokenIdentity {
  name: string;
  role: AdminRole;
}

/** One change made through the admin API, as `GET /api/audit` lists it. */
export interface AuditEntryView {
  /** Opaque, unique; `GET /api/audit?after=<id>` continues after it. */
  id: string;
  /** When the request finished, ISO 8601. */
  at: string;
  /** The token's name and role. */
  actor: TokenIdentity;
  /** HTTP method and route pattern, such as `DELETE /api/sessions/:id`. */
  action: string;
  /** The session the route names (`:id`), or null. */
  sessionId: string | null;
  /** The resource the route names (`:resource`), or null. */
  resource: string | null;
  /** The answer's status code. */
  status: number;
  /** The error's `code` when the change was refused or failed, else null. */
  code: string | null;
  /** What the change did, when its route reports it (see {@link AuditDetailsView}). */
  details?: AuditDetailsView;
}

/**
 * What a change did, as its audit entry keeps it: a retention sweep's `dryRun`, `expired` (the
 * first 100 ids) and `expiredCount`; an erase's `receipt`; and, on an actor's refused entry, how
 * many of their refused requests before it were not recorded one by one (`refusedNotRecorded`).
 */
export interface AuditDetailsView {
  [detail: string]: unknown;
  dryRun?: boolean;
  expired?: string[];
  expiredCount?: number;
  receipt?: Omit<EraseReceipt, 'resource'>;
  refusedNotRecorded?: number;
}

/** `GET /api/audit`: newest first. */
export interface AuditPage {
  items: AuditEntryView[];
  /** Pass as `after` for the next page; null on the last one. */
  next: string | null;
}

/** One message of `GET /api/sessions/:id/transcript`: a `CoveredEntry` with its token count. */
export interface TranscriptEntry extends CoveredEntry {
  /** Tokens of this message alone, counted as compaction counts them. */
  tokens: number;
}

/** `GET /api/sessions/:id/transcript?after&limit`: the stored log, oldest first, with token counts. */
export interface TranscriptPage {
  items: TranscriptEntry[];
  next: Cursor | null;
}

/** Where a message of the model's context comes from. */
export type ContextSource = 'summary' | 'pinned' | 'tail';

/** One message of what `retrieve()` returns now. */
export interface ContextMessage {
  source: ContextSource;
  /** The stored message's cursor, for `tail` messages; null for the summary and pinned ones. */
  cursor: Cursor | null;
  message: Message;
  tokens: number;
}

/** `GET /api/sessions/:id/context`: exactly the context `retrieve()` returns, with its token budget. */
export interface SessionContext {
  messages: ContextMessage[];
  /**
   * Token totals by source; `total` is what compaction compares with `compactAt`. Each message's
   * tokens include its own overhead (role and separators); `priming` is what the request adds once
   * to prime the model's reply (0 for an empty context), so summary + pinned + tail + priming =
   * total.
   */
  tokens: { summary: number; pinned: number; tail: number; priming: number; total: number };
  compactAt: number;
  snapshot: StoredSnapshot | null;
}

/** `GET /api/sessions/:id/export?format=json`: the whole session as one document. */
export interface SessionExport {
  /** ISO 8601 time of the export. */
  exportedAt: string;
  session: SessionInfo;
  snapshot: StoredSnapshot | null;
  /** The stored log, oldest first, covered messages included while they are kept. */
  messages: CoveredEntry[];
}

/** `GET /api/context-tokens?ids=a,b`: each session's context tokens now; null when it does not exist. */
export type ContextTokens = Record<string, number | null>;
