import type { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { memoryTableNames } from './memory-table-names';
import { MemoryMigrationDataSource } from './migrations/memory-migration.data-source';
import { MEMORY_MIGRATION_NAMES } from './migrations/memory-migrations';

/**
 * Whether every memory migration of `table` is recorded in its migrations table on `dataSource`
 * (false when that table does not exist). One query; used by `ensureSchema` and health checks.
 */
export async function memoryMigrationsApplied(
  dataSource: DataSource,
  table?: string,
): Promise<boolean> {
  const names = memoryTableNames(table);
  const qualified = names.schema
    ? `"${names.schema}"."${names.migrationsTable}"`
    : `"${names.migrationsTable}"`;
  const [{ exists }] = (await dataSource.query('SELECT to_regclass($1) IS NOT NULL AS exists', [
    qualified,
  ])) as [{ exists: boolean }];
  if (!exists) return false;
  const rows = (await dataSource.query(`SELECT name FROM ${qualified}`)) as { name: string }[];
  const applied = new Set(rows.map((row) => row.name));
  return MEMORY_MIGRATION_NAMES.every((name) => applied.has(name));
}

/**
 * Runs the pending memory migrations of `table` over the connection settings of `dataSource`
 * (on a short-lived DataSource of its own holding the migration advisory lock), creating the
 * schema of a `schema.` prefix. Returns at once when they are all applied already.
 * @throws RangeError when `table` is not a valid name, before any SQL.
 */
export async function ensureMemorySchema(dataSource: DataSource, table?: string): Promise<void> {
  memoryTableNames(table);
  if (await memoryMigrationsApplied(dataSource, table)) return;
  const options = dataSource.options as PostgresConnectionOptions;
  const migrator = new MemoryMigrationDataSource(
    // Two connections: one holds the advisory lock, one runs the migrations.
    { ...options, poolSize: 2, extra: { ...(options.extra as object), max: 2 } },
    table,
  );
  await migrator.initialize();
  try {
    await migrator.runMigrations({ transaction: 'all' });
  } finally {
    await migrator.destroy();
  }
}
