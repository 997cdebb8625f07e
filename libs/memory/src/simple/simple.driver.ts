import type { MemoryBackend } from '../core/backend.interface';
import type { MemoryDriver } from '../core/memory-driver';
import { readinessByCheck } from '../core/memory-readiness';
import { InMemoryAuditLog } from './in-memory-audit.log';
import { InMemoryLeaseStore } from '../core/in-memory-lease.store';
import { simpleBackend, type SimpleBackend } from './simple.backend';
import { DEFAULT_SIMPLE_CAPACITY } from './simple.defaults';

/** One lease store per backend: the leases of the processes on it are this process's. */
const leaseStores = new WeakMap<SimpleBackend, InMemoryLeaseStore>();

/** The in-process store's settings. */
export interface SimpleSettings {
  /** `MEMORY_SIMPLE_CAPACITY`: messages kept per session. */
  capacity: number;
}

/**
 * The in-process store (`simpleBackend`): sessions, audit log and leases live in this process
 * and end with it; compaction jobs stay in the module's in-process store.
 */
export const simpleDriver: MemoryDriver<SimpleBackend, SimpleSettings> = {
  kind: 'simple',
  summary: 'in this process only (gone when it ends)',
  durable: false,
  settings: [
    {
      env: 'MEMORY_SIMPLE_CAPACITY',
      summary: 'messages kept per session',
      default: String(DEFAULT_SIMPLE_CAPACITY),
    },
  ],
  readSettings: (reader) => ({
    capacity: reader.integer('MEMORY_SIMPLE_CAPACITY', DEFAULT_SIMPLE_CAPACITY, 1),
  }),
  describeSettings: () => 'the in-process store',
  create: async (settings, context = {}) =>
    simpleBackend({ capacity: settings.capacity, ...context.options }),
  owns: (backend: MemoryBackend) =>
    backend.kind === 'simple' && typeof (backend as Partial<SimpleBackend>).capacity === 'number',
  describe: () => 'the in-process store',
  readiness: readinessByCheck,
  readinessDetails: () => ({}),
  auditLog: async (_backend, { limits }) => new InMemoryAuditLog(limits),
  compactionJobStore: async () => undefined,
  leaseStore: async (backend) => {
    let leases = leaseStores.get(backend);
    if (!leases) leaseStores.set(backend, (leases = new InMemoryLeaseStore()));
    return leases;
  },
  storagePath: () => null,
  checkpoints: async (backend) => backend.checkpointStorage,
};
