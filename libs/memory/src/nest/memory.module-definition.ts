import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { MemoryModuleOptions } from './memory-module-options.interface';

/**
 * `MemoryModule`'s `forRoot` / `forRootAsync` (`useFactory`, `useClass`, `useExisting`), with
 * `isGlobal` as an extra (default false). A `useClass` factory implements `createMemoryOptions()`.
 */
export const {
  ConfigurableModuleClass: ConfigurableMemoryModule,
  MODULE_OPTIONS_TOKEN: MEMORY_MODULE_OPTIONS,
  OPTIONS_TYPE: MEMORY_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MEMORY_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MemoryModuleOptions>({ moduleName: 'Memory' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMemoryOptions')
  .setExtras({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
