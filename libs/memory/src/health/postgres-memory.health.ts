import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import { MEMORY_BACKEND } from '../nest/memory.injection';
import { postgresDriver } from '../postgres/postgres.driver';
import { storeReadinessResult } from './store-readiness';
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
    return storeReadinessResult(this.indicators, postgresDriver, this.backend, key, opts);
  }
}
