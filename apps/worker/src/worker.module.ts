import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, getConfigToken, registerAs } from '@nestjs/config';
import { MemoryModule } from '@agent-memory/memory';
import { memoryModuleOptionsFromConfig, type MemoryConfig } from '@agent-memory/memory-config';
import { compactionWorkerController } from './compaction-worker.controller';

/** Injection token of the worker's validated {@link MemoryConfig}. */
export const WORKER_MEMORY_CONFIG = getConfigToken('memory');

/**
 * The compaction worker: the memory backend and an inline `CompactionService` (from
 * `MemoryModule`), and the controller that answers checks on `COMPACTION_NATS_SUBJECT`.
 */
@Module({})
export class WorkerModule {
  /** @param config the environment, parsed and validated once by `main.ts`. */
  static forRoot(config: MemoryConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          skipProcessEnv: true,
          load: [registerAs('memory', () => config)],
        }),
        MemoryModule.forRootAsync({
          inject: [WORKER_MEMORY_CONFIG],
          useFactory: (memory: MemoryConfig) =>
            memoryModuleOptionsFromConfig(memory, { mode: 'inline', recall: false }),
        }),
      ],
      controllers: [compactionWorkerController(config.compactionSubject)],
    };
  }
}
