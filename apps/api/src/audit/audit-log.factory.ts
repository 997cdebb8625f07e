import { join } from 'node:path';
import {
  parseDuration,
  type AuditLog,
  type AuditLogLimits,
  type MemoryBackend,
} from '@agent-memory/memory';
import type { ApiConfig } from '../config/api-config';

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
 * The audit log next to the sessions of `backend`, so every replica on that backend writes to
 * and lists one log: the `<table>_audit` table (PostgreSQL), the `AUDIT_<bucket>` stream (NATS),
 * the `.audit` folder in `MEMORY_DIR` (JSON file), this process (`simple`), bounded by
 * {@link auditLogLimits}.
 * Optional backends' code is loaded only for their kind.
 */
export async function auditLogFor(
  backend: MemoryBackend,
  config: ApiConfig,
  limits: AuditLogLimits = auditLogLimits(config),
): Promise<AuditLog> {
  switch (backend.kind) {
    case 'postgres': {
      const { PostgresAuditLog } = await import('@agent-memory/memory/postgres');
      const { dataSource } = backend as import('@agent-memory/memory/postgres').PostgresBackend;
      return new PostgresAuditLog(dataSource, { table: config.pgTable ?? undefined, limits });
    }
    case 'nats': {
      const { natsAuditLog } = await import('@agent-memory/memory/nats');
      const { connection } = backend as import('@agent-memory/memory/nats').NatsBackend;
      return natsAuditLog({ connection, bucket: config.natsBucket, limits });
    }
    case 'jsonfile': {
      const { JsonFileAuditLog, JSON_FILE_AUDIT_FOLDER } = await import('@agent-memory/memory');
      return new JsonFileAuditLog({ dir: join(config.memoryDir, JSON_FILE_AUDIT_FOLDER), limits });
    }
    case 'simple': {
      const { InMemoryAuditLog } = await import('@agent-memory/memory');
      return new InMemoryAuditLog(limits);
    }
  }
}
