/**
 * The audit logs and compaction job stores kept next to each of the project's stores, as
 * initializers of `@agent-memory/conformance`'s audit-log and job-store suites.
 */
import type {
  AuditLogInitializer,
  CompactionJobStoreInitializer,
  MemoryBackendInitializer,
} from '@agent-memory/conformance';
import {
  InMemoryAuditLog,
  InMemoryCompactionJobStore,
  JSON_FILE_AUDIT_FOLDER,
  JsonFileAuditLog,
  JsonFileCompactionJobStore,
  type AuditLog,
  type AuditLogLimits,
  type CompactionJobStore,
  type MemoryBackend,
} from '@agent-memory/memory';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from 'nats';
import type { DataSource } from 'typeorm';
import { TestBuckets } from '../support/nats';
import { TestSchemas } from '../support/postgres';
import { testNatsUrl } from '../support/services';
import type { BackendSpec } from './backends';

/** Opens the audit log of `backend`'s storage (`spec`) with `limits`. */
type OpenAuditLog = (
  backend: MemoryBackend,
  spec: BackendSpec,
  limits: Partial<AuditLogLimits>,
) => AuditLog | Promise<AuditLog>;

/**
 * The audit log of each backend `backends` makes: a replica's log is opened from a second backend
 * on the same storage, which is closed with it.
 */
export function auditLogInitializer(
  backends: MemoryBackendInitializer<BackendSpec>,
  open: OpenAuditLog,
): AuditLogInitializer {
  const { storageOf, openStorage } = backends;
  if (!storageOf || !openStorage) throw new Error(`${backends.name}: no storage to share`);
  const owners = new Map<AuditLog, { backend: MemoryBackend; replica: boolean }>();
  return {
    name: backends.name,
    async createAuditLog(limits) {
      const backend = await backends.createBackend();
      const log = await open(backend, storageOf(backend), limits);
      owners.set(log, { backend, replica: false });
      return log;
    },
    async openReplica(log, limits) {
      const spec = storageOf(owners.get(log)!.backend);
      const backend = await openStorage(spec);
      const replica = await open(backend, spec, limits);
      owners.set(replica, { backend, replica: true });
      return replica;
    },
    async destroyAuditLog(log) {
      const owner = owners.get(log)!;
      owners.delete(log);
      if (owner.replica) await owner.backend.close();
      else await (backends.destroyBackend?.(owner.backend) ?? owner.backend.close());
    },
    afterAll: () => backends.afterAll?.(),
  };
}

/** The in-process store's log: one per process, nothing to share. */
export const inMemoryAuditLogInitializer = (): AuditLogInitializer => ({
  name: 'simple',
  createAuditLog: (limits) => new InMemoryAuditLog(limits),
});

/** The JSON-file store's log, in the audit folder next to the sessions' folder. */
export const jsonFileAuditLog: OpenAuditLog = (_backend, spec, limits) => {
  if (spec.kind !== 'jsonfile') throw new Error('the JSON-file store names a folder');
  return new JsonFileAuditLog({ dir: join(spec.dir, JSON_FILE_AUDIT_FOLDER), limits });
};

/** The PostgreSQL store's `<table>_audit` table (the backend's migrations create it). */
export const postgresAuditLog: OpenAuditLog = async (backend, spec, limits) => {
  if (spec.kind !== 'postgres') throw new Error('the PostgreSQL store names a table');
  const { PostgresAuditLog } = await import('@agent-memory/memory/postgres');
  const { dataSource } = backend as import('@agent-memory/memory/postgres').PostgresBackend;
  return new PostgresAuditLog(dataSource, { table: spec.table, limits });
};

/** The NATS store's audit stream next to its bucket. */
export const natsAuditLog: OpenAuditLog = async (backend, spec, limits) => {
  if (spec.kind !== 'nats') throw new Error('the NATS store names a bucket');
  const nats = await import('@agent-memory/memory/nats');
  const { connection } = backend as import('@agent-memory/memory/nats').NatsBackend;
  return nats.natsAuditLog({ connection, bucket: spec.bucket, limits });
};

/** The in-process job store. */
export const inMemoryJobStoreInitializer = (): CompactionJobStoreInitializer => ({
  name: 'in-process',
  createJobStore: ({ now }) => new InMemoryCompactionJobStore(now),
});

/** One folder per job store under a temporary root. */
export function jsonFileJobStoreInitializer(): CompactionJobStoreInitializer {
  const root = mkdtempSync(join(tmpdir(), 'agent-memory-jobs-'));
  let counter = 0;
  return {
    name: 'JSON file',
    createJobStore: ({ now, ttlMs }) =>
      new JsonFileCompactionJobStore({ dir: join(root, `jobs-${++counter}`), ttlMs, now }),
    afterAll: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** One table per job store, in schemas dropped after the suite, on one shared DataSource. */
export function postgresJobStoreInitializer(): CompactionJobStoreInitializer {
  const schemas = new TestSchemas('jobs');
  let dataSource: DataSource | null = null;
  return {
    name: 'PostgreSQL',
    async createJobStore({ now }): Promise<CompactionJobStore> {
      const { DataSource } = await import('typeorm');
      const { ensureMemorySchema, PostgresCompactionJobStore } =
        await import('@agent-memory/memory/postgres');
      dataSource ??= await new DataSource({ type: 'postgres', url: schemas.url }).initialize();
      const table = schemas.nextTable();
      await ensureMemorySchema(dataSource, table);
      return new PostgresCompactionJobStore(dataSource, table, now);
    },
    async afterAll() {
      await dataSource?.destroy();
      await schemas.cleanup();
    },
  };
}

/** One KV bucket per job store on one shared connection, all deleted after the suite. */
export function natsJobStoreInitializer(): CompactionJobStoreInitializer {
  const buckets = new TestBuckets('jobs');
  let connection: NatsConnection | null = null;
  return {
    name: 'NATS',
    async createJobStore({ ttlMs }) {
      const { connect } = await import('nats');
      const { natsCompactionJobStore } = await import('@agent-memory/memory/nats');
      connection ??= await connect({ servers: testNatsUrl() });
      return natsCompactionJobStore({ connection, bucket: buckets.next(), ttlMs });
    },
    async afterAll() {
      await connection?.close();
      await buckets.cleanup();
    },
  };
}
