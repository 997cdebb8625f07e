import { DataSource, type DataSourceOptions, type QueryRunner } from 'typeorm';
import { memoryTableNames } from '../memory-table-names';
import { memoryMigrationOptions } from './memory-migrations';

/**
 * TypeORM's PostgreSQL connection options, named through `typeorm`'s main entry: a deep import
 * (`typeorm/driver/postgres/…`) does not resolve under `moduleResolution: "bundler"`.
 */
export type PostgresConnectionOptions = Extract<DataSourceOptions, { type: 'postgres' }>;

/** Every memory migration run on a server waits for this advisory lock (one key for all tables). */
const MIGRATION_LOCK_SQL = "SELECT pg_advisory_lock(hashtext('agent-memory:migrations'))";
const MIGRATION_UNLOCK_SQL = "SELECT pg_advisory_unlock(hashtext('agent-memory:migrations'))";

/**
 * A DataSource for running (or reverting) the memory migrations of one `table`, used by
 * `ensureSchema` and by the TypeORM CLI (`migrations/data-source.ts`).
 *
 * `initialize()` also takes a session-level `pg_advisory_lock` on a connection of its own and
 * holds it until `destroy()`, so two processes migrating at once run one after the other: the
 * second sees the first one's migrations as applied (TypeORM's own check-then-run is not atomic).
 * It then creates the `schema.` prefix's schema when missing, so the migrations table fits in it.
 */
export class MemoryMigrationDataSource extends DataSource {
  private lockRunner: QueryRunner | null = null;

  /**
   * @param connection how to connect (url, host, `extra`…); entity, migration and sync options are replaced.
   * @throws RangeError when `table` is not a valid name, before any SQL.
   */
  constructor(
    connection: Omit<PostgresConnectionOptions, 'type'> & { type?: 'postgres' },
    readonly table?: string,
  ) {
    super({
      ...connection,
      type: 'postgres',
      ...memoryMigrationOptions(table),
      entities: [],
      subscribers: [],
      synchronize: false,
      migrationsRun: false,
      dropSchema: false,
      migrationsTransactionMode: 'all',
    });
  }

  override async initialize(): Promise<this> {
    await super.initialize();
    try {
      const runner = this.createQueryRunner();
      this.lockRunner = runner;
      await runner.query(MIGRATION_LOCK_SQL);
      const { schema } = memoryTableNames(this.table);
      if (schema) await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } catch (error) {
      await this.destroy();
      throw error;
    }
    return this;
  }

  override async destroy(): Promise<void> {
    const runner = this.lockRunner;
    this.lockRunner = null;
    if (runner) {
      await runner.query(MIGRATION_UNLOCK_SQL).catch(() => undefined);
      await runner.release();
    }
    await super.destroy();
  }
}
