import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import { MEMORY_BACKEND } from '../nest/memory.tokens';
import type { PostgresBackend } from '../postgres/postgres.backend';
import { DEFAULT_HEALTH_TIMEOUT_MS, healthMessage, withHealthTimeout } from './health-timeout';
import type { MemoryHealthOptions } from './memory.health';

/**
 * Terminus indicator for a `postgresBackend`: `up` with the table when the database answers and
 * the tables, columns and triggers the store needs exist, within the timeout, whichever runner
 * migrated them (`ensureSchema`, the CLI, or the app's own DataSource with `migrationsRun`) and
 * whichever table recorded that; `down` when the database is unreachable or slow, when something
 * is missing (listed in `missing`: run the migrations, or `ensureSchema: true`), or when the
 * module's backend is not Postgres. Never throws, never hangs.
 */
@Injectable()
export class PostgresMemoryHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend,
  ) {}

  /** Probes the database and the migrations; the result's key is `key` (default `memory_postgres`). */
  async isHealthy<const Key extends string = 'memory_postgres'>(
    key: Key = 'memory_postgres' as Key,
    opts: MemoryHealthOptions = {},
  ): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.indicators.check(key);
    if (!isPostgresBackend(this.backend)) {
      return indicator.down({
        message: `the memory backend is ${this.backend.kind}, not postgres`,
      });
    }
    const backend = this.backend;
    const table = backend.tables.table;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
    try {
      const status = await withHealthTimeout(
        `PostgreSQL (table "${table}")`,
        timeoutMs,
        async () => {
          await backend.check();
          return backend.schemaStatus();
        },
      );
      if (!status.ready) {
        return indicator.down({
          table,
          migrations: 'pending',
          missing: status.missing,
          message: `the memory migrations of table "${table}" are not applied (missing: ${status.missing.join(', ')})`,
        });
      }
      return indicator.up({ table, migrations: 'applied' });
    } catch (error) {
      return indicator.down({ table, message: healthMessage(error) });
    }
  }
}

function isPostgresBackend(backend: MemoryBackend): backend is PostgresBackend {
  return (
    backend.kind === 'postgres' &&
    typeof (backend as Partial<PostgresBackend>).schemaStatus === 'function'
  );
}
