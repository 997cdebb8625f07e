import { Module, type DynamicModule, type InjectionToken, type Provider } from '@nestjs/common';
import { compactionJobsProvider } from './compaction-jobs.provider';
import { CompactionService } from './compaction.service';
import { MEMORY_BACKEND, MEMORY_COMPACTION_CONFIG } from './memory.constants';
import { MEMORY_MODULE_OPTIONS } from './memory.module-definition';
import type {
  MemoryInstanceOptions,
  MemoryModuleAsyncOptions,
  MemoryModuleOptions,
  MemoryModuleRootOptions,
  MemoryOptionsFactory,
} from './memory-module-options.interface';
import {
  compactionConfigProvider,
  compactionRunnerProvider,
  guardBackendPromise,
  memoryBackendProvider,
  namedInstanceProviders,
} from './memory.providers';
import { MemoryService } from './memory.service';
import {
  getMemoryOptionsToken,
  isDefaultMemoryName,
  memoryBackendLookupToken,
} from './memory.tokens';

/**
 * Conversation memory for a Nest app:
 * - `MemoryModule.forRoot({ backend: () => postgresBackend({ url }), compaction?, name?, isGlobal? })`
 * - `MemoryModule.forRootAsync({ imports, inject, useFactory | useClass | useExisting, name?, isGlobal? })`
 *
 * The default instance exports {@link MemoryService}, {@link CompactionService}, `MEMORY_BACKEND`
 * and `MEMORY_COMPACTION_CONFIG`. A named instance (`name: 'archive'`) exports its own under
 * `getMemoryToken(name)`, `getMemoryBackendToken(name)` and `getCompactionServiceToken(name)`
 * (`@InjectMemory(name)`, `@InjectMemoryBackend(name)`, `@InjectCompaction(name)`), so several
 * instances with different backends live in one app, each compacting its own sessions.
 *
 * Nothing connects before start-up: a backend factory is called during module init, and a backend
 * promise's rejection fails start-up with its error. Options are validated at start-up
 * (TypeError / RangeError naming the option). The module owns the backend: on shutdown compaction
 * stops first, then the backend is closed; call `app.enableShutdownHooks()` so that happens on
 * SIGTERM.
 */
@Module({})
export class MemoryModule {
  /** One memory instance with the given options. */
  static forRoot(options: MemoryModuleRootOptions): DynamicModule {
    guardBackendPromise(options);
    const provide = getMemoryOptionsToken(options?.name);
    return memoryModule(options ?? {}, [], [{ provide, useValue: options }]);
  }

  /** One memory instance whose options come from a factory, a class or an existing provider. */
  static forRootAsync(options: MemoryModuleAsyncOptions): DynamicModule {
    const provide = getMemoryOptionsToken(options.name);
    return memoryModule(options, options.imports ?? [], asyncOptionsProviders(provide, options));
  }
}

/** The instance's providers: class providers for the default one, named ones otherwise. */
function memoryModule(
  instance: MemoryInstanceOptions,
  imports: NonNullable<DynamicModule['imports']>,
  optionsProviders: Provider[],
): DynamicModule {
  const global = instance.isGlobal ?? false;
  if (!isDefaultMemoryName(instance.name)) {
    const name = instance.name!;
    const named = namedInstanceProviders(name);
    return {
      module: MemoryModule,
      global,
      imports,
      providers: [...optionsProviders, ...named.providers],
      exports: named.exports,
    };
  }
  return {
    module: MemoryModule,
    global,
    imports,
    providers: [
      ...optionsProviders,
      memoryBackendProvider,
      compactionConfigProvider,
      compactionRunnerProvider,
      compactionJobsProvider,
      CompactionService,
      MemoryService,
      // Not exported: lets `MemoryHealthModule` find this backend by a token unique in the app.
      { provide: memoryBackendLookupToken(), useExisting: MEMORY_BACKEND },
    ],
    exports: [
      MemoryService,
      CompactionService,
      MEMORY_BACKEND,
      MEMORY_COMPACTION_CONFIG,
      MEMORY_MODULE_OPTIONS,
    ],
  };
}

/** The options provider of `forRootAsync`: the user's factory, class or existing provider. */
function asyncOptionsProviders(
  provide: InjectionToken,
  options: MemoryModuleAsyncOptions,
): Provider[] {
  const given = [options.useFactory, options.useClass, options.useExisting].filter(
    (way) => way !== undefined,
  );
  if (given.length !== 1) {
    throw new TypeError(
      'MemoryModule.forRootAsync needs exactly one of useFactory, useClass or useExisting',
    );
  }
  if (options.useFactory) {
    const factory = options.useFactory;
    return [
      {
        provide,
        inject: options.inject ?? [],
        useFactory: async (...args: unknown[]): Promise<MemoryModuleOptions> =>
          guardBackendPromise(await factory(...args)),
      },
    ];
  }
  const source = (options.useClass ?? options.useExisting)!;
  return [
    ...(options.useClass ? [options.useClass] : []),
    {
      provide,
      inject: [source],
      useFactory: async (factory: MemoryOptionsFactory): Promise<MemoryModuleOptions> =>
        guardBackendPromise(await factory.createMemoryOptions()),
    },
  ];
}
