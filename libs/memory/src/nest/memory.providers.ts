import { Logger, type InjectionToken, type Provider } from '@nestjs/common';
import type { MemoryBackend } from '../core/backend.interface';
import type { CompactionRunner } from '../compaction/compaction-job.interface';
import { InlineCompactionRunner } from '../compaction/inline-compaction.runner';
import type { SharedCompactionJobs } from '../compaction/shared-compaction-jobs';
import { createSharedCompactionJobs } from './compaction-jobs.provider';
import { CompactionService } from './compaction.service';
import { COMPACTION_RUNNER, MEMORY_BACKEND, MEMORY_COMPACTION_CONFIG } from './memory.constants';
import { MEMORY_MODULE_OPTIONS } from './memory.module-definition';
import type { MemoryModuleOptions } from './memory-module-options.interface';
import {
  assertMemoryBackend,
  resolveCompactionConfig,
  validateMemoryModuleOptions,
  type ResolvedCompactionConfig,
} from './memory-options.validation';
import { MemoryService } from './memory.service';
import {
  getCompactionServiceToken,
  getMemoryBackendToken,
  getMemoryOptionsToken,
  getMemoryToken,
} from './memory.tokens';
import { withRecall } from '../rag/recall.backend';

/**
 * Marks a backend promise as handled at once, so that a rejection that comes before start-up
 * awaits it (a database that is down while the app is still importing its modules) is not an
 * unhandled rejection: the backend provider still awaits the same promise and fails start-up with
 * its error. Returns the options unchanged.
 */
export function guardBackendPromise<T extends Partial<MemoryModuleOptions> | undefined>(
  options: T,
): T {
  const backend: unknown = options?.backend;
  if (backend instanceof Promise || typeof (backend as PromiseLike<unknown>)?.then === 'function') {
    Promise.resolve(backend as PromiseLike<unknown>).catch(() => undefined);
  }
  return options;
}

/**
 * The backend the options name: the factory's result (called now, during module init), or the
 * awaited promise, or the instance itself; validated.
 * @throws what the factory or the promise throws; TypeError when the result is not a backend.
 */
export async function resolveMemoryBackend(options: MemoryModuleOptions): Promise<MemoryBackend> {
  guardBackendPromise(options);
  validateMemoryModuleOptions(options);
  const given: unknown = options.backend;
  const backend: unknown =
    typeof given === 'function' ? await (given as () => unknown)() : await given;
  assertMemoryBackend(backend);
  return options.recall ? withRecall(backend, options.recall) : backend;
}

/**
 * The runner of one instance: in-process, or on the NATS compaction workers. The NATS runner (and
 * with it `@nestjs/microservices`) is loaded only for `mode: 'nats'`.
 */
async function createCompactionRunner(
  backend: MemoryBackend,
  config: ResolvedCompactionConfig,
): Promise<CompactionRunner> {
  if (config.mode === 'nats' && config.nats) {
    const { NatsCompactionRunner } = await import('../compaction/nats-compaction.runner');
    return new NatsCompactionRunner(config.nats, new Logger('CompactionService'));
  }
  return new InlineCompactionRunner(backend, config);
}

/** The one provider of the backend: the options' factory result, promise result or instance. */
export const memoryBackendProvider: Provider = {
  provide: MEMORY_BACKEND,
  inject: [MEMORY_MODULE_OPTIONS],
  useFactory: resolveMemoryBackend,
};

/** The compaction settings with defaults filled in. */
export const compactionConfigProvider: Provider = {
  provide: MEMORY_COMPACTION_CONFIG,
  inject: [MEMORY_MODULE_OPTIONS],
  useFactory: (options: MemoryModuleOptions): ResolvedCompactionConfig =>
    resolveCompactionConfig(options.compaction),
};

/** Where the default instance's checks run. */
export const compactionRunnerProvider: Provider = {
  provide: COMPACTION_RUNNER,
  inject: [MEMORY_BACKEND, MEMORY_COMPACTION_CONFIG],
  useFactory: createCompactionRunner,
};

/**
 * The providers of the named instance `name` (besides its options, under
 * `getMemoryOptionsToken(name)`). Every token carries the name, so a lookup of `MemoryService`
 * or `MEMORY_BACKEND` anywhere in the app (`app.get(MemoryService)`) still finds the default
 * instance, never a named one; the services are built here rather than by class injection.
 */
export function namedInstanceProviders(name: string): {
  providers: Provider[];
  exports: InjectionToken[];
} {
  const options = getMemoryOptionsToken(name);
  const backend = getMemoryBackendToken(name);
  const config = `agent-memory:${name}:CompactionConfig`;
  const runner = `agent-memory:${name}:CompactionRunner`;
  const jobs = `agent-memory:${name}:CompactionJobs`;
  const compaction = getCompactionServiceToken(name);
  const memory = getMemoryToken(name);
  return {
    providers: [
      { provide: backend, inject: [options], useFactory: resolveMemoryBackend },
      {
        provide: config,
        inject: [options],
        useFactory: (given: MemoryModuleOptions) => resolveCompactionConfig(given.compaction),
      },
      { provide: runner, inject: [backend, config], useFactory: createCompactionRunner },
      { provide: jobs, inject: [options], useFactory: createSharedCompactionJobs },
      {
        provide: compaction,
        inject: [runner, config, jobs],
        useFactory: (
          run: CompactionRunner,
          settings: ResolvedCompactionConfig,
          shared: SharedCompactionJobs,
        ) => new CompactionService(run, settings, shared),
      },
      {
        provide: memory,
        inject: [backend, compaction],
        useFactory: (store: MemoryBackend, compactor: CompactionService) =>
          new MemoryService(store, compactor),
      },
    ],
    exports: [memory, backend, compaction, options, config],
  };
}
