import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import { MEMORY_BACKEND } from '../nest/memory.constants';
import type { PostgresBackend } from '../postgres/postgres.backend';
import { DEFAULT_HEALTH_TIMEOUT_MS, healthMessage, withHealthTimeout } from './health-timeout';
import type { MemoryHealthOptions } from './memory.health';

/**
 * Terminus indicator for a `postgresBackend`: `up` with the table when the database answers and
 * every memory migration of the table is applied, within the timeout; `down` when the database is
 * unreachable or slow, when migrations are pending (run them, or `ensureSchema: true`), or when
 * the module's backend is not Postgres. Never throws, never hangs.
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
      const applied = await withHealthTimeout(
        `PostgreSQL (table "${table}")`,
        timeoutMs,
        async () => {
          await backend.check();
          return backend.migrationsApplied();
        },
      );
      if (!applied) {
        return indicator.down({
          table,
          migrations: 'pending',
          message: `the memory migrations of table "${table}" are not applied`,
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
    typeof (backend as Partial<PostgresBackend>).migrationsApplied === 'function'
  );
}
