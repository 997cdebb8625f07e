import type { MemoryModuleOptions } from '@agent-memory/memory';
import { instrumentBackend } from '@agent-memory/memory/observability';
import { memoryModuleOptionsFromConfig } from '@agent-memory/memory-config';
import { compactionJobStoreFor } from './compactions/compaction-job-store.factory';
import type { LastCompactions } from './compactions/last-compactions';
import type { ApiConfig } from './config/api-config';
import { MemoryMetrics } from './metrics/memory-metrics';

/**
 * The memory module's options for the admin server: the shared settings
 * (`memoryModuleOptionsFromConfig`) plus compaction jobs kept next to the sessions, so that any
 * replica answers `GET /api/compactions/:id`; the backend instrumented for metrics, logs and
 * spans; finished compactions counted and each session's last one kept (`lastCompactions`).
 */
export function apiMemoryOptions(
  config: ApiConfig,
  metrics: MemoryMetrics,
  lastCompactions?: LastCompactions,
): MemoryModuleOptions {
  const options = memoryModuleOptionsFromConfig(config, {
    observer: metrics,
    onRecallError: (_error, operation) => metrics.recallFailed(operation),
  });
  const given = options.backend;
  // A backend factory is called here, inside the module's async options factory (start-up).
  const opened = Promise.resolve(typeof given === 'function' ? given() : given);
  const backend = opened.then((raw) => instrumentBackend(raw, { observer: metrics }));
  const store = opened.then((raw) => compactionJobStoreFor(raw, config));
  // When the backend fails to open, the module reports that; this copy of the failure is handled.
  store.catch(() => undefined);
  lastCompactions?.useStore(store, config.compactionJobTtlMs);
  return {
    ...options,
    backend,
    compaction: {
      ...options.compaction,
      jobs: {
        store,
        ttlMs: config.compactionJobTtlMs,
        leaseMs: config.compactionJobLeaseMs,
        onFinished: (job) => {
          metrics.compactionFinished(job);
          void lastCompactions?.record(job);
        },
      },
    },
  };
}
