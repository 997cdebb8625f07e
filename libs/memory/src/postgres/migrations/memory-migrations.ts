import type { MigrationInterface } from 'typeorm';
import { memoryTableNames } from '../memory-table-names';
import { AdoptMessagesTable1764770000000 } from './adopt-messages-table.migration';
import { AddIdempotencyKeys1764950000000 } from './add-idempotency-keys.migration';
import { CreateAuditLog1765100000000 } from './create-audit-log.migration';
import { AddResourceIndex1765200000000 } from './add-resource-index.migration';
import { MirrorSnapshotUpTo1765300000000 } from './mirror-snapshot-upto.migration';
import { MoveIdempotencyKeys1765400000000 } from './move-idempotency-keys.migration';
import { CreateCompactionJobs1764960000000 } from './create-compaction-jobs.migration';
import { CreateMemoryTables1764680000000 } from './create-memory-tables.migration';
import { CreateSaveProcedure1764970000000 } from './create-save-procedure.migration';
import { CreateLeases1765500000000 } from './create-leases.migration';
import { CreateCheckpointTables1765600000000 } from './create-checkpoint-tables.migration';

/** A migration class TypeORM can instantiate (its `migrations` option takes classes, not instances). */
export type MemoryMigrationClass = new () => MigrationInterface;

/**
 * The TypeORM migrations that create the tables of `table` (default `conversation_memory`; a
 * `schema.` prefix is allowed), in order, as classes bound to those table names. Pass them as a
 * DataSource's explicit `migrations` array: either the library's own (`ensureSchema`, the CLI,
 * recorded in `<table>_migrations`) or the app's (`migrations: [...createMemoryMigrations(t)]`
 * with `migrationsRun: true`, recorded in the app's migrations table). Every migration is
 * idempotent, so both may run on one database, in any order, and on tables Phero created.
 * @throws RangeError when `table` is not a valid name, before any SQL.
 */
export function createMemoryMigrations(table?: string): MemoryMigrationClass[] {
  const names = memoryTableNames(table);
  return [
    class extends CreateMemoryTables1764680000000 {
      constructor() {
        super(names);
      }
    },
    class extends AdoptMessagesTable1764770000000 {
      constructor() {
        super(names);
      }
    },
    class extends AddIdempotencyKeys1764950000000 {
      constructor() {
        super(names);
      }
    },
    class extends CreateCompactionJobs1764960000000 {
      constructor() {
        super(names);
      }
    },
    class extends CreateSaveProcedure1764970000000 {
      constructor() {
        super(names);
      }
    },
    class extends CreateAuditLog1765100000000 {
      constructor() {
        super(names);
      }
    },
    class extends AddResourceIndex1765200000000 {
      constructor() {
        super(names);
      }
    },
    class extends MirrorSnapshotUpTo1765300000000 {
      constructor() {
        super(names);
      }
    },
    class extends MoveIdempotencyKeys1765400000000 {
      constructor() {
        super(names);
      }
    },
    class extends CreateLeases1765500000000 {
      constructor() {
        super(names);
      }
    },
    class extends CreateCheckpointTables1765600000000 {
      constructor() {
        super(names);
      }
    },
  ];
}

/** The names of the migrations of {@link createMemoryMigrations}, in order. */
export const MEMORY_MIGRATION_NAMES: readonly string[] = [
  CreateMemoryTables1764680000000.migrationName,
  AdoptMessagesTable1764770000000.migrationName,
  AddIdempotencyKeys1764950000000.migrationName,
  CreateCompactionJobs1764960000000.migrationName,
  CreateSaveProcedure1764970000000.migrationName,
  CreateAuditLog1765100000000.migrationName,
  AddResourceIndex1765200000000.migrationName,
  MirrorSnapshotUpTo1765300000000.migrationName,
  MoveIdempotencyKeys1765400000000.migrationName,
  CreateLeases1765500000000.migrationName,
  CreateCheckpointTables1765600000000.migrationName,
];

/**
 * The DataSource options that keep the migrations of `table` apart from any other: its own
 * migrations table (`<table>_migrations`, in the same schema) and the explicit migrations array.
 * Used by both `ensureMemorySchema` and the CLI data source.
 */
export function memoryMigrationOptions(table?: string): {
  migrations: MemoryMigrationClass[];
  migrationsTableName: string;
  schema: string | undefined;
} {
  const names = memoryTableNames(table);
  return {
    migrations: createMemoryMigrations(table),
    migrationsTableName: names.migrationsTable,
    schema: names.schema ?? undefined,
  };
}
