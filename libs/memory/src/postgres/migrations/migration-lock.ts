import type { QueryRunner } from 'typeorm';

/**
 * Serialises the memory migrations' DDL across processes, whoever runs them (`ensureSchema`, the
 * CLI, or the app's own DataSource with `migrationsRun`): a transaction-scoped advisory lock taken
 * first in every `up`/`down`. Its key differs from the session-level lock that
 * `MemoryMigrationDataSource` holds on another connection, so the two never wait on each other.
 */
export async function lockMigrationDdl(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query("SELECT pg_advisory_xact_lock(hashtext('agent-memory:migration-ddl'))");
}
