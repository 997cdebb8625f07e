import type { BeforeApplicationShutdown, Provider } from '@nestjs/common';
import type { MemoryBackend } from '../core/backend.interface';
import type { CompactionRunner } from './compaction-job.interface';
import { InlineCompactionRunner } from './inline-compaction.runner';
import { COMPACTION_RUNNER, MEMORY_BACKEND, MEMORY_COMPACTION_CONFIG } from './memory.constants';
import { MEMORY_MODULE_OPTIONS } from './memory.module-definition';
import type { MemoryModuleOptions } from './memory-module-options.interface';
import {
  assertMemoryBackend,
  resolveCompactionConfig,
  validateMemoryModuleOptions,
  type ResolvedCompactionConfig,
} from './memory-options.validation';
import { NatsCompactionRunner } from './nats-compaction.runner';
import { withRecall } from '../rag/recall.backend';

/** The one provider of the backend: the options' instance (or the promise's result), validated. */
export const memoryBackendProvider: Provider = {
  provide: MEMORY_BACKEND,
  inject: [MEMORY_MODULE_OPTIONS],
  useFactory: async (options: MemoryModuleOptions): Promise<MemoryBackend> => {
    validateMemoryModuleOptions(options);
    const backend: unknown = await options.backend;
    assertMemoryBackend(backend);
    return options.recall ? withRecall(backend, options.recall) : backend;
  },
};

/** The compaction settings with defaults filled in. */
export const compactionConfigProvider: Provider = {
  provide: MEMORY_COMPACTION_CONFIG,
  inject: [MEMORY_MODULE_OPTIONS],
  useFactory: (options: MemoryModuleOptions): ResolvedCompactionConfig =>
    resolveCompactionConfig(options.compaction),
};

/** Closes a NATS runner's own client once compaction has drained (after `onModuleDestroy`). */
class ClosingNatsCompactionRunner
  extends NatsCompactionRunner
  implements BeforeApplicationShutdown
{
  async beforeApplicationShutdown(): Promise<void> {
    await this.close();
  }
}

/** Where checks run: in-process, or on the NATS compaction workers. */
export const compactionRunnerProvider: Provider = {
  provide: COMPACTION_RUNNER,
  inject: [MEMORY_BACKEND, MEMORY_COMPACTION_CONFIG],
  useFactory: (backend: MemoryBackend, config: ResolvedCompactionConfig): CompactionRunner =>
    config.mode === 'nats' && config.nats
      ? new ClosingNatsCompactionRunner(config.nats)
      : new InlineCompactionRunner(backend, config),
};
