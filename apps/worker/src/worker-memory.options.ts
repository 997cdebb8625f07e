import type { MemoryModuleOptions } from '@agent-memory/memory';
import { instrumentBackend } from '@agent-memory/memory/observability';
import { memoryModuleOptionsFromConfig, type MemoryConfig } from '@agent-memory/memory-config';
import type { MemoryMetrics } from '../../api/src/metrics/memory-metrics';

/**
 * The worker's memory module options: the shared settings with inline compaction and no recall
 * (the worker neither saves messages nor answers `retrieve`), the backend instrumented for the
 * same metrics and logs as the admin server's, and every finished compaction counted
 * (`agent_memory_compactions_total`, `agent_memory_compaction_tokens_saved_total`).
 */
export function workerMemoryOptions(
  config: MemoryConfig,
  metrics: MemoryMetrics,
): MemoryModuleOptions {
  const options = memoryModuleOptionsFromConfig(config, {
    mode: 'inline',
    recall: false,
    observer: metrics,
  });
  const given = options.backend;
  // A backend factory is called here, inside the module's async options factory (start-up).
  const backend = Promise.resolve(typeof given === 'function' ? given() : given).then((raw) =>
    instrumentBackend(raw, { observer: metrics }),
  );
  return {
    ...options,
    backend,
    compaction: {
      ...options.compaction,
      jobs: { onFinished: (job) => metrics.compactionFinished(job) },
    },
  };
}
