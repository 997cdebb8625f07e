import { Module, type DynamicModule, type InjectionToken, type Provider } from '@nestjs/common';
import type {
  MemoryInstanceOptions,
  MemoryModuleAsyncOptions,
  MemoryModuleOptions,
  MemoryModuleRootOptions,
  MemoryOptionsFactory,
} from './memory-module-options.interface';
import {
  guardBackendPromise,
  memoryInstanceExports,
  memoryInstanceProviders,
} from './memory.providers';
import { getMemoryInstanceTokens, type MemoryInstanceTokens } from './memory.injection';

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
 * stops first, then the backend is closed (a failing `close()` is logged, not thrown); call
 * `app.enableShutdownHooks()` so that happens on SIGTERM.
 */
@Module({})
export class MemoryModule {
  /** One memory instance with the given options. */
  static forRoot(options: MemoryModuleRootOptions): DynamicModule {
    guardBackendPromise(options);
    const tokens = getMemoryInstanceTokens(options?.name);
    return memoryModule(
      tokens,
      options ?? {},
      [],
      [{ provide: tokens.options, useValue: options }],
    );
  }

  /** One memory instance whose options come from a factory, a class or an existing provider. */
  static forRootAsync(options: MemoryModuleAsyncOptions): DynamicModule {
    const tokens = getMemoryInstanceTokens(options.name);
    const optionsProviders = asyncOptionsProviders(tokens.options, options);
    return memoryModule(tokens, options, options.imports ?? [], optionsProviders);
  }
}

/** One instance's module: its options providers, then the one recipe for its tokens. */
function memoryModule(
  tokens: MemoryInstanceTokens,
  instance: MemoryInstanceOptions,
  imports: NonNullable<DynamicModule['imports']>,
  optionsProviders: Provider[],
): DynamicModule {
  return {
    module: MemoryModule,
    global: instance.isGlobal ?? false,
    imports,
    providers: [...optionsProviders, ...memoryInstanceProviders(tokens)],
    exports: memoryInstanceExports(tokens),
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
