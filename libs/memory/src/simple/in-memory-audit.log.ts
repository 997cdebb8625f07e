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

/**
 * The audit log of one process (the `simple` backend's): entries in an array, oldest first, ids a
 * counter. Over `maxEntries` the oldest go at once; entries older than `maxAgeMs` are dropped at
 * the next append and never listed.
 */
export class InMemoryAuditLog implements AuditLog {
  private readonly entries: AuditEntry[] = [];
  private nextId = 1;
  private readonly limits: AuditLogLimits;

  /**
   * @param limits what to keep; default {@link DEFAULT_AUDIT_LOG_LIMITS}.
   * @param now the clock the age is measured on (epoch ms).
   */
  constructor(
    limits: Partial<AuditLogLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_AUDIT_LOG_LIMITS, ...limits };
  }

  append(entry: NewAuditEntry): Promise<AuditEntry> {
    const stored: AuditEntry = { id: String(this.nextId++), ...entry };
    this.entries.push(stored);
    const oldest = this.now() - this.limits.maxAgeMs;
    let drop = Math.max(0, this.entries.length - this.limits.maxEntries);
    while (drop < this.entries.length && Date.parse(this.entries[drop]!.at) < oldest) drop++;
    if (drop > 0) this.entries.splice(0, drop);
    return Promise.resolve(stored);
  }

  list(options: { limit?: number; after?: string | null } = {}): Promise<AuditLogPage> {
    const limit = auditPageSize(options.limit);
    let before = Number.MAX_SAFE_INTEGER;
    if (options.after) {
      if (!/^\d{1,15}$/.test(options.after)) {
        return Promise.reject(new InvalidQueryError('after', 'not a cursor of this audit log'));
      }
      before = Number(options.after);
    }
    const oldest = this.now() - this.limits.maxAgeMs;
    const items: AuditEntry[] = [];
    let more = false;
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (Number(entry.id) >= before) continue;
      if (Date.parse(entry.at) < oldest) break;
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(entry);
    }
    return Promise.resolve({ items, next: more ? items[items.length - 1]!.id : null });
  }
}
