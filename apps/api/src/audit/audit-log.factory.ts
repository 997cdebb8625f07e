import {
  parseDuration,
  type AuditLog,
  type AuditLogLimits,
  type MemoryBackend,
} from '@agent-memory/memory';
import type { ApiConfig } from '../config/api-config';
import { drivenStore } from '../memory-store/memory-store';

/**
 * The audit log's bounds: `AUDIT_MAX_ENTRIES` and `AUDIT_MAX_AGE_MS`, and, under a retention
 * policy with a `maxAge`, never longer than that: a record of who changed a session is kept no
 * longer than the session itself may be.
 */
export function auditLogLimits(config: ApiConfig): AuditLogLimits {
  const retentionMaxAge = config.retention?.policy.maxAge;
  const retentionMs =
    retentionMaxAge === undefined
      ? Number.POSITIVE_INFINITY
      : parseDuration('MEMORY_RETENTION_MAX_AGE', retentionMaxAge);
  return {
    maxEntries: config.auditMaxEntries,
    maxAgeMs: Math.min(config.auditMaxAgeMs, retentionMs),
  };
}

/**
 * The audit log next to the sessions of `backend`, from its store's driver, so every replica on
 * that store writes to and lists one log: the `<table>_audit` table (PostgreSQL), the
 * `AUDIT_<bucket>` stream (NATS), the `.audit` folder in `MEMORY_DIR` (JSON file), this process
 * (`simple`), bounded by {@link auditLogLimits}.
 */
export function auditLogFor(
  backend: MemoryBackend,
  config: ApiConfig,
  limits: AuditLogLimits = auditLogLimits(config),
): Promise<AuditLog> {
  const { driver, store } = drivenStore(backend);
  return driver.auditLog(store, { limits });
}
