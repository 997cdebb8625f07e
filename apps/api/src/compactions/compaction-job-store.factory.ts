import { join } from 'node:path';
import type { CompactionJobStore, MemoryBackend } from '@agent-memory/memory';
import type { ApiConfig } from '../config/api-config';

/**
 * The compaction job store next to the sessions of `backend`, so that every replica on that
 * backend answers for every job: the `<table>_jobs` table (PostgreSQL), the `<bucket>_jobs` KV
 * bucket (NATS), the `.compaction-jobs` folder in `MEMORY_DIR` (JSON file). The in-process
 * (`simple`) backend has one process: undefined, the module's in-process default.
 * Optional backends' code is loaded only for their kind.
 */
export async function compactionJobStoreFor(
  backend: MemoryBackend,
  config: ApiConfig,
): Promise<CompactionJobStore | undefined> {
  switch (backend.kind) {
    case 'postgres': {
      const { PostgresCompactionJobStore } = await import('@agent-memory/memory/postgres');
      const { dataSource } = backend as import('@agent-memory/memory/postgres').PostgresBackend;
      return new PostgresCompactionJobStore(dataSource, config.pgTable ?? undefined);
    }
    case 'nats': {
      const { natsCompactionJobStore } = await import('@agent-memory/memory/nats');
      const { connection } = backend as import('@agent-memory/memory/nats').NatsBackend;
      return natsCompactionJobStore({
        connection,
        bucket: `${config.natsBucket}_jobs`,
        ttlMs: config.compactionJobTtlMs,
      });
    }
    case 'jsonfile': {
      const { JsonFileCompactionJobStore, JSON_FILE_JOBS_FOLDER } =
        await import('@agent-memory/memory');
      return new JsonFileCompactionJobStore({
        dir: join(config.memoryDir, JSON_FILE_JOBS_FOLDER),
        ttlMs: config.compactionJobTtlMs,
      });
    }
    case 'simple':
      return undefined;
  }
}
