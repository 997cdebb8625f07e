import { Logger, type InjectionToken, type Provider } from '@nestjs/common';
import type { MemoryBackend } from '../core/backend.interface';
import type { CompactionRunner } from '../compaction/compaction-job.interface';
import { InlineCompactionRunner } from '../compaction/inline-compaction.runner';
import { SharedCompactionJobs } from '../compaction/shared-compaction-jobs';
import { withRecall } from '../rag/recall.backend';
import { CompactionService } from './compaction.service';
import type { MemoryModuleOptions } from './memory-module-options.interface';
import {
  assertMemoryBackend,
  resolveCompactionConfig,
  validateMemoryModuleOptions,
  type ResolvedCompactionConfig,
} from './memory-options.validation';
import { MemoryService } from './memory.service';
import { MemoryTeardown } from './memory.teardown';
import type { MemoryInstanceTokens } from './memory.injection';

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
    const { NatsCompactionRunner } = await import('./nats-compaction.runner');
    return new NatsCompactionRunner(config.nats, new Logger('CompactionService'));
  }
  return new InlineCompactionRunner(backend, config);
}

/** Builds the shared job record of one module instance from its options (the store awaited). */
export async function createSharedCompactionJobs(
  options: MemoryModuleOptions,
): Promise<SharedCompactionJobs> {
  const jobs = options.compaction?.jobs ?? {};
  const store = await jobs.store;
  if (
    store !== undefined &&
    (typeof store?.put !== 'function' || typeof store.get !== 'function')
  ) {
    throw new TypeError('compaction.jobs.store must be a CompactionJobStore (put and get)');
  }
  return new SharedCompactionJobs({ ...jobs, store, logger: new Logger('CompactionJobs') });
}

/**
 * The providers of one memory instance, default or named, besides its options (which
 * `forRoot`/`forRootAsync` provide under `tokens.options`). The services are built here from
 * the instance's tokens rather than by class injection, so one recipe serves every instance.
 */
export function memoryInstanceProviders(tokens: MemoryInstanceTokens): Provider[] {
  const providers: Provider[] = [
    { provide: tokens.backend, inject: [tokens.options], useFactory: resolveMemoryBackend },
    {
      provide: tokens.compactionConfig,
      inject: [tokens.options],
      useFactory: (options: MemoryModuleOptions): ResolvedCompactionConfig =>
        resolveCompactionConfig(options.compaction),
    },
    {
      provide: tokens.compactionRunner,
      inject: [tokens.backend, tokens.compactionConfig],
      useFactory: createCompactionRunner,
    },
    {
      provide: tokens.compactionJobs,
      inject: [tokens.options],
      useFactory: createSharedCompactionJobs,
    },
    {
      provide: tokens.compaction,
      inject: [tokens.compactionRunner, tokens.compactionConfig, tokens.compactionJobs],
      useFactory: (
        runner: CompactionRunner,
        config: ResolvedCompactionConfig,
        jobs: SharedCompactionJobs,
      ) => new CompactionService(runner, config, jobs),
    },
    {
      provide: tokens.memory,
      inject: [tokens.backend, tokens.compaction],
      useFactory: (backend: MemoryBackend, compaction: CompactionService) =>
        new MemoryService(backend, compaction),
    },
    {
      provide: tokens.teardown,
      inject: [tokens.compaction, tokens.compactionRunner, tokens.backend],
      useFactory: (
        compaction: CompactionService,
        runner: CompactionRunner,
        backend: MemoryBackend,
      ) => new MemoryTeardown(tokens.name, compaction, runner, backend, new Logger('MemoryModule')),
    },
  ];
  if (tokens.backendLookup !== tokens.backend) {
    // Not exported: lets `MemoryHealthModule` find this backend by a token unique in the app.
    providers.push({ provide: tokens.backendLookup, useExisting: tokens.backend });
  }
  return providers;
}

/** What every memory instance exports: its services, backend, compaction settings and options. */
export function memoryInstanceExports(tokens: MemoryInstanceTokens): InjectionToken[] {
  return [
    tokens.memory,
    tokens.compaction,
    tokens.backend,
    tokens.compactionConfig,
    tokens.options,
  ];
}
