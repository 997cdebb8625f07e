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
  DEFAULT_AUDIT_LOG_LIMITS,
  InMemoryAuditLog,
  InMemoryCompactionJobStore,
  type AuditLog,
  type AuditLogLimits,
  type CompactionJobStore,
  type MemoryBackend,
} from '@agent-memory/memory';
import { driverOf, type BackendSpec } from './backends';

/**
 * The audit log of each backend `backends` makes, opened by the store's driver
 * (`MemoryDriver.auditLog`): a replica's log is opened from a second backend on the same storage,
 * which is closed with it.
 */
export function auditLogInitializer(
  backends: MemoryBackendInitializer<BackendSpec>,
): AuditLogInitializer {
  const { storageOf, openStorage } = backends;
  if (!storageOf || !openStorage) throw new Error(`${backends.name}: no storage to share`);
  const owners = new Map<AuditLog, { backend: MemoryBackend; replica: boolean }>();
  const open = (backend: MemoryBackend, spec: BackendSpec, limits: Partial<AuditLogLimits>) =>
    driverOf(spec).auditLog(backend, { limits: { ...DEFAULT_AUDIT_LOG_LIMITS, ...limits } });
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

/** The in-process job store. */
export const inMemoryJobStoreInitializer = (): CompactionJobStoreInitializer => ({
  name: 'in-process',
  createJobStore: ({ now }) => new InMemoryCompactionJobStore(now),
});

/**
 * The compaction-job store next to each backend `backends` makes, opened by the store's driver
 * (`MemoryDriver.compactionJobStore`) on the test's clock; the backend is closed with it.
 */
export function jobStoreInitializer(
  name: string,
  backends: MemoryBackendInitializer<BackendSpec>,
): CompactionJobStoreInitializer {
  const { storageOf } = backends;
  if (!storageOf) throw new Error(`${backends.name}: no storage to share`);
  const owners = new Map<CompactionJobStore, MemoryBackend>();
  return {
    name,
    async createJobStore({ now, ttlMs }) {
      const backend = await backends.createBackend();
      const store = await driverOf(storageOf(backend)).compactionJobStore(backend, { now, ttlMs });
      if (!store) throw new Error(`${backends.name} keeps no compaction jobs next to its sessions`);
      owners.set(store, backend);
      return store;
    },
    async destroyJobStore(store) {
      const backend = owners.get(store)!;
      owners.delete(store);
      await (backends.destroyBackend?.(backend) ?? backend.close());
    },
    afterAll: () => backends.afterAll?.(),
  };
}
