import type { MemoryBackend } from '../core/backend.interface';
import { DEFAULT_MEMORY_TABLE } from './postgres.defaults';
import type { MemoryDriver } from '../core/memory-driver';
import { loadOptionalModule } from '../core/optional-peer';
import type { RequiredSetting } from '../core/settings-reader';
import type { PostgresBackend } from './postgres.backend';

/**
 * The packages the PostgreSQL store needs besides this one: its optional peers, and
 * `reflect-metadata`, which TypeORM's entities need loaded first.
 */
export const POSTGRES_PEERS = ['typeorm', 'pg', 'reflect-metadata'] as const;

/**
 * Loads a module of the PostgreSQL store (`reflect-metadata` first, as TypeORM's decorators
 * need), naming a missing package.
 * @throws MissingPeerError
 */
export function loadPostgresModule<T>(load: () => Promise<T>): Promise<T> {
  return loadOptionalModule('the postgres store', POSTGRES_PEERS, async () => {
    await import('reflect-metadata');
    return load();
  });
}

/** The PostgreSQL store's settings. */
export interface PostgresSettings {
  /** `DATABASE_URL` (`--url`): the database. */
  url: string;
  /** `MEMORY_PG_TABLE` (`--table`): the messages table, `table` or `schema.table`; null: the default. */
  table: string | null;
  /** `MEMORY_PG_ENSURE_SCHEMA`: migrate the tables at start-up (default true). */
  ensureSchema: boolean;
}

const DATABASE_URL: RequiredSetting = {
  env: 'DATABASE_URL',
  flag: 'url',
  what: 'database',
  example: 'postgres://user@host:5432/db',
};

const tableOf = (table: string | null) => table ?? DEFAULT_MEMORY_TABLE;

/**
 * Whether `backend`, a store with its decorators taken off (`innermostBackend`), is a PostgreSQL
 * store: then its `dataSource` and `tables` can be read.
 */
export function isPostgresBackend(backend: MemoryBackend): backend is PostgresBackend {
  return (
    backend.kind === 'postgres' &&
    typeof (backend as Partial<PostgresBackend>).schemaStatus === 'function'
  );
}

/**
 * The PostgreSQL store (`postgresBackend`): sessions in `<table>`, `<table>_snapshots`, … and next
 * to them the audit log (`<table>_audit`), the compaction jobs (`<table>_jobs`) and the leases
 * (`<table>_leases`). Needs the packages `typeorm` and `pg`, loaded only by `create`.
 */
export const postgresDriver: MemoryDriver<PostgresBackend, PostgresSettings> = {
  kind: 'postgres',
  summary: 'PostgreSQL (needs typeorm and pg)',
  durable: true,
  settings: [
    { env: 'DATABASE_URL', flag: 'url', summary: 'the PostgreSQL database' },
    {
      env: 'MEMORY_PG_TABLE',
      flag: 'table',
      summary: 'the messages table, name or schema.name',
      default: DEFAULT_MEMORY_TABLE,
    },
    {
      env: 'MEMORY_PG_ENSURE_SCHEMA',
      summary: 'true migrates the tables at start-up, false leaves it to "agent-memory migrate"',
      default: 'true',
    },
  ],
  readSettings: (reader) => {
    reader.require(DATABASE_URL, 'MEMORY_BACKEND=postgres');
    return {
      url: reader.url('DATABASE_URL', ['postgres:', 'postgresql:']) ?? '',
      table: reader.string('MEMORY_PG_TABLE'),
      ensureSchema: reader.oneOf('MEMORY_PG_ENSURE_SCHEMA', ['true', 'false'], 'true') === 'true',
    };
  },
  describeSettings: (settings) => `the PostgreSQL table "${tableOf(settings.table)}"`,
  async create(settings, context = {}) {
    const { postgresBackend } = await loadPostgresModule(() => import('./postgres.backend'));
    return postgresBackend({
      url: settings.url,
      ...(settings.table ? { table: settings.table } : {}),
      ensureSchema: settings.ensureSchema,
      ...context.options,
    });
  },
  owns: isPostgresBackend,
  describe: (backend) => `PostgreSQL (table "${backend.tables.table}")`,
  async readiness(backend) {
    const table = backend.tables.table;
    await backend.check();
    const schema = await backend.schemaStatus();
    if (schema.ready) {
      return {
        ready: true,
        kind: backend.kind,
        details: { table, migrations: 'applied' },
        missing: [],
      };
    }
    return {
      ready: false,
      kind: backend.kind,
      details: { table, migrations: 'pending' },
      missing: schema.missing,
      reason:
        `the memory migrations of table "${table}" are not applied (missing: ` +
        `${schema.missing.join(', ')}): run "agent-memory migrate" (or the TypeORM migrations), or turn ensureSchema on`,
    };
  },
  readinessDetails: (backend) => ({ table: backend.tables.table }),
  async auditLog(backend, { limits }) {
    const { PostgresAuditLog } = await import('./postgres-audit.log');
    return new PostgresAuditLog(backend.dataSource, { table: backend.tables.table, limits });
  },
  async compactionJobStore(backend, options = {}) {
    const { PostgresCompactionJobStore } = await import('./postgres-compaction-job.store');
    return new PostgresCompactionJobStore(backend.dataSource, backend.tables.table, options.now);
  },
  async leaseStore(backend) {
    const { PostgresLeaseStore } = await import('./postgres-lease.store');
    return new PostgresLeaseStore(backend.dataSource, backend.tables.table);
  },
  storagePath: () => null,
  checkpoints: async (backend) => backend.checkpointStorage,
};
