import {
  BUILT_IN_DRIVERS,
  driverOfBackend,
  type DrivenBackend,
  type MemoryBackend,
} from '@agent-memory/memory';

/**
 * The store under `backend`'s decorators (tracing, recall) with its driver, which builds what
 * the server keeps next to the sessions (audit log, compaction jobs, leases).
 * @throws TypeError when no built-in driver owns the store (the server builds only those).
 */
export function drivenStore(backend: MemoryBackend): DrivenBackend {
  const driven = driverOfBackend(BUILT_IN_DRIVERS, backend);
  if (!driven) {
    throw new TypeError(`no driver owns the memory backend of kind "${backend.kind}"`);
  }
  return driven;
}
