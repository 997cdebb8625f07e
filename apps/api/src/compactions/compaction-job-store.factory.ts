import type { CompactionJobStore, MemoryBackend } from '@agent-memory/memory';
import type { ApiConfig } from '../config/api-config';
import { drivenStore } from '../memory-store/memory-store';

/**
 * The compaction job store next to the sessions of `backend`, from its store's driver, so that
 * every replica on that store answers for every job: the `<table>_jobs` table (PostgreSQL), the
 * `<bucket>_jobs` KV bucket (NATS), the `.compaction-jobs` folder in `MEMORY_DIR` (JSON file).
 * The in-process (`simple`) store has one process: undefined, the module's in-process default.
 */
export function compactionJobStoreFor(
  backend: MemoryBackend,
  config: ApiConfig,
): Promise<CompactionJobStore | undefined> {
  const { driver, store } = drivenStore(backend);
  return driver.compactionJobStore(store, { ttlMs: config.compactionJobTtlMs });
}
