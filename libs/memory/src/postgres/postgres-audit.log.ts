import type { DataSource } from 'typeorm';
import {
  auditPageSize,
  DEFAULT_AUDIT_LOG_LIMITS,
  type AuditEntry,
  type AuditLog,
  type AuditLogLimits,
  type AuditLogPage,
  type NewAuditEntry,
} from '../core/audit-log.interface';
import { InvalidQueryError } from '../core/errors';
import { pgRequest } from '../pg-errors/postgres-request.error';
import { memoryTableNames, type MemoryTableNames } from './memory-table-names';

/** How often, at most, an append also deletes what is past the limits (ms). */
const PRUNE_INTERVAL_MS = 60_000;

/** The quoted, schema-qualified name of the audit table of `names` (`<table>_audit`). */
export function auditLogTable(names: MemoryTableNames): string {
  const name = `${names.base}_audit`;
  return names.schema ? `"${names.schema}"."${name}"` : `"${name}"`;
}

/** Options of {@link PostgresAuditLog}. */
export interface PostgresAuditLogOptions {
  /** The backend's `table` option; default `conversation_memory`. */
  table?: string;
  /** What to keep; default {@link DEFAULT_AUDIT_LOG_LIMITS}. */
  limits?: Partial<AuditLogLimits>;
  /** The clock of the pruning (epoch ms). Default `Date.now`. */
  now?: () => number;
}

/**
 * The audit log in PostgreSQL, next to the sessions: the `<table>_audit` table the memory
 * migrations create (one row per entry, its id a `bigserial`, so every replica appends to and
 * pages through one order). An append deletes the rows past `maxEntries` or older than `maxAgeMs`
 * at most once a minute; rows past either limit are never listed.
 */
export class PostgresAuditLog implements AuditLog {
  private readonly table: string;
  private readonly limits: AuditLogLimits;
  private readonly now: () => number;
  private nextPruneAt = 0;

  /**
   * @param dataSource the backend's DataSource (`postgresBackend(...).dataSource`); not closed here.
   * @throws RangeError when `table` is not a valid name.
   */
  constructor(
    private readonly dataSource: DataSource,
    options: PostgresAuditLogOptions = {},
  ) {
    this.table = auditLogTable(memoryTableNames(options.table));
    this.limits = { ...DEFAULT_AUDIT_LOG_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
  }

  /** @throws PostgresRequestError when the database does not answer or the table is missing. */
  async append(entry: NewAuditEntry): Promise<AuditEntry> {
    const rows = (await pgRequest('append an audit entry', entry.sessionId, () =>
      this.dataSource.query(
        `INSERT INTO ${this.table} (at, entry) VALUES ($1::timestamptz, $2::jsonb) RETURNING id`,
        [entry.at, JSON.stringify(entry)],
      ),
    )) as { id: string }[];
    await this.pruneIfDue();
    // `pg` reads a bigint as text, which keeps every id exact.
    return { ...entry, id: String(rows[0]!.id) };
  }

  /** @throws InvalidQueryError for an `after` that is no id; PostgresRequestError when the database does not answer. */
  async list(options: { limit?: number; after?: string | null } = {}): Promise<AuditLogPage> {
    const limit = auditPageSize(options.limit);
    const after = options.after ?? null;
    if (after !== null && !/^\d{1,18}$/.test(after)) {
      throw new InvalidQueryError('after', 'not a cursor of this audit log');
    }
    const oldest = new Date(this.now() - this.limits.maxAgeMs).toISOString();
    const rows = (await pgRequest('list the audit log', null, () =>
      this.dataSource.query(
        `SELECT id, entry FROM ${this.table}
         WHERE ($1::bigint IS NULL OR id < $1::bigint) AND at >= $2::timestamptz
           AND id > coalesce((SELECT id FROM ${this.table} ORDER BY id DESC OFFSET $4 LIMIT 1), 0)
         ORDER BY id DESC LIMIT $3`,
        [after, oldest, limit + 1, this.limits.maxEntries],
      ),
    )) as { id: string; entry: NewAuditEntry }[];
    const items = rows.slice(0, limit).map((row) => ({ ...row.entry, id: String(row.id) }));
    return { items, next: rows.length > limit ? items[items.length - 1]!.id : null };
  }

  /** Deletes the rows past the limits, at most once every {@link PRUNE_INTERVAL_MS}. */
  private async pruneIfDue(): Promise<void> {
    const now = this.now();
    if (now < this.nextPruneAt) return;
    this.nextPruneAt = now + PRUNE_INTERVAL_MS;
    await pgRequest('prune the audit log', null, () =>
      this.dataSource.query(
        `DELETE FROM ${this.table} WHERE at < $1::timestamptz OR id <= (
           SELECT id FROM ${this.table} ORDER BY id DESC OFFSET $2 LIMIT 1)`,
        [new Date(now - this.limits.maxAgeMs).toISOString(), this.limits.maxEntries],
      ),
    );
  }
}
