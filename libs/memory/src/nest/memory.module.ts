import { Module, type DynamicModule, type Provider } from '@nestjs/common';
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
} from './memory.providers';
import { MemoryService } from './memory.service';
import {
  getCompactionServiceToken,
  getMemoryBackendToken,
  getMemoryOptionsToken,
  getMemoryToken,
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
    return memoryModule(options ?? {}, [], [{ provide: MEMORY_MODULE_OPTIONS, useValue: options }]);
  }

  /** One memory instance whose options come from a factory, a class or an existing provider. */
  static forRootAsync(options: MemoryModuleAsyncOptions): DynamicModule {
    return memoryModule(options, options.imports ?? [], asyncOptionsProviders(options));
  }
}

/** The instance's own providers, and the named aliases it exports. */
function memoryModule(
  instance: MemoryInstanceOptions,
  imports: NonNullable<DynamicModule['imports']>,
  optionsProviders: Provider[],
): DynamicModule {
  const providers: Provider[] = [
    ...optionsProviders,
    memoryBackendProvider,
    compactionConfigProvider,
    compactionRunnerProvider,
    CompactionService,
    MemoryService,
  ];
  if (isDefaultMemoryName(instance.name)) {
    // Not exported: lets `MemoryHealthModule` find this instance's backend by a token no named
    // instance shares (inside every instance the backend is `MEMORY_BACKEND`).
    providers.push({
      provide: memoryBackendLookupToken(instance.name),
      useExisting: MEMORY_BACKEND,
    });
  }
  let exports: NonNullable<DynamicModule['exports']>;
  if (isDefaultMemoryName(instance.name)) {
    exports = [
      MemoryService,
      CompactionService,
      MEMORY_BACKEND,
      MEMORY_COMPACTION_CONFIG,
      MEMORY_MODULE_OPTIONS,
    ];
  } else {
    // Inside, every instance uses the plain tokens; outside, only its named aliases are visible,
    // so two instances never collide.
    const aliases: Provider[] = [
      { provide: getMemoryToken(instance.name), useExisting: MemoryService },
      { provide: getMemoryBackendToken(instance.name), useExisting: MEMORY_BACKEND },
      { provide: getCompactionServiceToken(instance.name), useExisting: CompactionService },
      { provide: getMemoryOptionsToken(instance.name), useExisting: MEMORY_MODULE_OPTIONS },
    ];
    providers.push(...aliases);
    exports = aliases.map((alias) => (alias as { provide: string }).provide);
  }
  return {
    module: MemoryModule,
    global: instance.isGlobal ?? false,
    imports,
    providers,
    exports,
  };
}

/** The options provider of `forRootAsync`: the user's factory, class or existing provider. */
function asyncOptionsProviders(options: MemoryModuleAsyncOptions): Provider[] {
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
        provide: MEMORY_MODULE_OPTIONS,
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
      provide: MEMORY_MODULE_OPTIONS,
      inject: [source],
      useFactory: async (factory: MemoryOptionsFactory): Promise<MemoryModuleOptions> =>
        guardBackendPromise(await factory.createMemoryOptions()),
    },
  ];
}
