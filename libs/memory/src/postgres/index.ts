/**
 * `@agent-memory/memory/postgres`: sessions in PostgreSQL through TypeORM on `pg`. Importing this
 * loads `typeorm` and `pg`; the core entry never does.
 */
export * from './postgres.store';
export * from './postgres.backend';
export {
  PostgresQueryError,
  PostgresRequestError,
  isPostgresUnavailable,
} from '../pg-errors/postgres-request.error';
export {
  DEFAULT_MEMORY_TABLE,
  memoryTableNames,
  type MemoryTableNames,
} from './memory-table-names';
export {
  ensureMemorySchema,
  memoryMigrationsApplied,
  memorySchemaStatus,
  type MemorySchemaStatus,
} from './memory-schema';
export {
  createMemoryMigrations,
  memoryMigrationOptions,
  MEMORY_MIGRATION_NAMES,
  type MemoryMigrationClass,
} from './migrations/memory-migrations';
export { CreateMemoryTables1764680000000 } from './migrations/create-memory-tables.migration';
export { AdoptMessagesTable1764770000000 } from './migrations/adopt-messages-table.migration';
export { AddIdempotencyKeys1764950000000 } from './migrations/add-idempotency-keys.migration';
export { MemoryMigrationDataSource } from './migrations/memory-migration.data-source';
export { PostgresCompactionJobStore, compactionJobsTable } from './postgres-compaction-job.store';
export { CreateCompactionJobs1764960000000 } from './migrations/create-compaction-jobs.migration';
export {
  PostgresAuditLog,
  auditLogTable,
  type PostgresAuditLogOptions,
} from './postgres-audit.log';
export { CreateAuditLog1765100000000 } from './migrations/create-audit-log.migration';
export { CreateSaveProcedure1764970000000 } from './migrations/create-save-procedure.migration';
export { AddResourceIndex1765200000000 } from './migrations/add-resource-index.migration';
export { PostgresLeaseStore, leasesTable } from './postgres-lease.store';
export { CreateLeases1765500000000 } from './migrations/create-leases.migration';
export {
  postgresDriver,
  isPostgresBackend,
  loadPostgresModule,
  POSTGRES_PEERS,
  type PostgresSettings,
} from './postgres.driver';
export { CreateCheckpointTables1765600000000 } from './migrations/create-checkpoint-tables.migration';
