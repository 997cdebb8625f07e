/**
 * One change made through the admin API, as the audit log keeps it: who, what, on which session
 * or resource, when, and how it ended.
 */
export interface AuditEntry {
  /** Unique in its log, assigned by the log; opaque (pass it as `after` to page on). */
  id: string;
  /** When the request finished, ISO 8601. */
  at: string;
  /** The token's configured name and role (`viewer`, `operator`, `admin`). */
  actor: { name: string; role: string };
  /** HTTP method and route pattern, such as `DELETE /api/sessions/:id`. */
  action: string;
  /** The session the route names, or null. */
  sessionId: string | null;
  /** The resource the route names, or null. */
  resource: string | null;
  /** The answer's HTTP status code. */
  status: number;
  /** The error's stable `code` when the change was refused or failed, else null. */
  code: string | null;
  /**
   * What the change did, when the route reports it (a retention sweep's `dryRun` and what it
   * expired, an erase's receipt): a small JSON object, stored as is. Absent otherwise.
   */
  details?: Readonly<Record<string, unknown>>;
}

/** An entry before the log gives it its `id`. */
export type NewAuditEntry = Omit<AuditEntry, 'id'>;

/** One page of {@link AuditLog.list}: newest first. */
export interface AuditLogPage {
  items: AuditEntry[];
  /** Pass as `after` for the next (older) page; null on the last one. */
  next: string | null;
}

/** How much an audit log keeps: entries past either bound are dropped (see each log's docs for when). */
export interface AuditLogLimits {
  /** The newest entries kept. Default {@link DEFAULT_AUDIT_LOG_LIMITS}`.maxEntries`. */
  maxEntries: number;
  /** Entries older than this are dropped and no longer listed (ms). */
  maxAgeMs: number;
}

/** 10,000 entries, 90 days. */
export const DEFAULT_AUDIT_LOG_LIMITS: Readonly<AuditLogLimits> = Object.freeze({
  maxEntries: 10_000,
  maxAgeMs: 90 * 86_400_000,
});

/** `list`'s page size when none is given, and the largest one it accepts. */
export const AUDIT_LOG_PAGE = Object.freeze({ defaultLimit: 50, maxLimit: 500 });

/**
 * Where the admin API records the changes made through it, kept in the backend itself so every
 * replica writes to and lists the same log: in this process (`InMemoryAuditLog`), a JSON Lines
 * file in a JSON-file store's folder, a table next to the PostgreSQL sessions, a JetStream stream
 * next to the NATS bucket. Each is bounded by {@link AuditLogLimits}; a retention policy passes
 * its own limits where the log is built.
 */
export interface AuditLog {
  /** Records one entry and resolves with it, `id` assigned. */
  append(entry: NewAuditEntry): Promise<AuditEntry>;
  /**
   * Entries newest first, `limit` of them (default 50, at most 500), older than the entry `after`
   * names when given.
   * @throws InvalidQueryError when `after` is not a cursor this log made.
   */
  list(options?: { limit?: number; after?: string | null }): Promise<AuditLogPage>;
}

/** `limit` clamped to 1..{@link AUDIT_LOG_PAGE}`.maxLimit`, the default when absent. */
export function auditPageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return AUDIT_LOG_PAGE.defaultLimit;
  return Math.min(Math.max(Math.trunc(limit), 1), AUDIT_LOG_PAGE.maxLimit);
}
