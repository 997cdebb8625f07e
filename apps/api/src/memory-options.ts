import type { MemoryModuleOptions } from '@agent-memory/memory';
import { memoryModuleOptionsFromConfig } from '../../shared/memory-options.factory';
import { compactionJobStoreFor } from './compactions/compaction-job-store.factory';
import type { ApiConfig } from './config/api-config';

/**
 * The memory module's options for the admin server: the shared settings
 * (`memoryModuleOptionsFromConfig`) plus compaction jobs kept next to the sessions, so that any
 * replica answers `GET /api/compactions/:id`.
 */
export function apiMemoryOptions(config: ApiConfig): MemoryModuleOptions {
  const options = memoryModuleOptionsFromConfig(config);
  const backend = Promise.resolve(options.backend);
  const store = backend.then((opened) => compactionJobStoreFor(opened, config));
  // When the backend fails to open, the module reports that; this copy of the failure is handled.
  store.catch(() => undefined);
  return {
    ...options,
    backend,
    compaction: {
      ...options.compaction,
      jobs: {
        store,
        ttlMs: config.compactionJobTtlMs,
        leaseMs: config.compactionJobLeaseMs,
      },
    },
  };
}
