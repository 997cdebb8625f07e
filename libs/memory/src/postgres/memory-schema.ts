import type { DataSource } from 'typeorm';
import {
  KEYS_TRIGGER,
  MEMORY_TRIGGERS,
  SNAPSHOTS_TRIGGER,
  memoryTableNames,
  type MemoryTableNames,
} from './memory-table-names';
import {
  MemoryMigrationDataSource,
  type PostgresConnectionOptions,
} from './migrations/memory-migration.data-source';
import { MEMORY_MIGRATION_NAMES } from './migrations/memory-migrations';

/**
 * Whether every memory migration of `table` is recorded in the library's own migrations table
 * (`<table>_migrations`) on `dataSource` (false when that table does not exist). `ensureSchema`
 * uses it to skip the migrator; it says nothing of migrations the app's own DataSource ran and
 * recorded elsewhere: {@link memorySchemaStatus} checks the tables themselves.
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
 * @throws RangeError when `table` is not a valid name, before any SQL, or when it names an
 * existing messages table of another shape (its columns are named; nothing is changed).
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

/** What {@link memorySchemaStatus} found. */
export interface MemorySchemaStatus {
  /** Every table, column, trigger and procedure the store needs exists. */
  ready: boolean;
  /**
   * What is missing, such as `table conversation_memory_sessions`, `trigger agent_memory_added` or
   * `procedure conversation_memory_save_group`.
   */
  missing: string[];
}

/**
 * Checks, in one query of the catalogue, that the tables, columns, triggers and save procedure the store needs for
 * `table` exist on `dataSource`, whichever runner created them and whichever table recorded the
 * migrations (the library's `<table>_migrations`, or the app's own with `migrationsRun`).
 * Used by the PostgreSQL health indicator.
 * @throws RangeError when `table` is not a valid name, before any SQL.
 */
export async function memorySchemaStatus(
  dataSource: DataSource,
  table?: string,
): Promise<MemorySchemaStatus> {
  const names = memoryTableNames(table);
  const required = requiredObjects(names);
  const rows = (await dataSource.query(
    `SELECT t.name AS relation, a.attname AS item
     FROM unnest($1::text[], $2::text[]) AS t(name, qualified)
     JOIN pg_attribute a ON a.attrelid = to_regclass(t.qualified) AND a.attnum > 0 AND NOT a.attisdropped
     UNION ALL
     SELECT ':trigger', tgname FROM pg_trigger
     WHERE tgrelid IN (to_regclass($3), to_regclass($5), to_regclass($6)) AND NOT tgisinternal
     UNION ALL
     SELECT ':procedure', 'save' WHERE to_regprocedure($4::text) IS NOT NULL`,
    [
      required.tables.map((t) => t.name),
      required.tables.map((t) => t.qualified),
      names.messages,
      required.procedure,
      names.snapshots,
      names.sessions,
    ],
  )) as { relation: string; item: string }[];
  const found = new Set(rows.map((row) => `${row.relation}\u0000${row.item}`));
  const present = new Set(rows.map((row) => row.relation));
  const missing: string[] = [];
  for (const { name, columns } of required.tables) {
    if (!present.has(name)) {
      missing.push(`table ${name}`);
      continue;
    }
    for (const column of columns) {
      if (!found.has(`${name}\u0000${column}`)) missing.push(`column ${name}.${column}`);
    }
  }
  for (const trigger of required.triggers) {
    if (!found.has(`:trigger\u0000${trigger}`)) missing.push(`trigger ${trigger}`);
  }
  if (!found.has(`:procedure\u0000save`)) {
    missing.push(`procedure ${names.base}_save_group`);
  }
  return { ready: missing.length === 0, missing };
}

/** The tables (with their columns), triggers and save procedure (with its signature) the store uses. */
function requiredObjects(names: MemoryTableNames): {
  tables: { name: string; qualified: string; columns: string[] }[];
  triggers: string[];
  procedure: string;
} {
  return {
    tables: [
      {
        name: names.base,
        qualified: names.messages,
        columns: ['session_id', 'seq', 'message', 'created_at'],
      },
      {
        name: `${names.base}_snapshots`,
        qualified: names.snapshots,
        columns: ['session_id', 'upto_seq', 'snapshot', 'created_at'],
      },
      {
        name: `${names.base}_sessions`,
        qualified: names.sessions,
        columns: ['session_id', 'saved', 'stored', 'updated_at', 'meta', 'snapshot_upto'],
      },
      {
        name: `${names.base}_keys`,
        qualified: names.keys,
        columns: ['session_id', 'key', 'first_seq', 'last_seq', 'digest'],
      },
    ],
    triggers: [...Object.values(MEMORY_TRIGGERS), SNAPSHOTS_TRIGGER, KEYS_TRIGGER],
    procedure: `${names.functions.saveGroup}(text,jsonb,integer[],text[],text[],boolean,bigint[],bigint,jsonb)`,
  };
}
