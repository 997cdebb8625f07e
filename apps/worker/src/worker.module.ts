import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, getConfigToken, registerAs } from '@nestjs/config';
import { MemoryModule } from '@agent-memory/memory';
import type { MemoryConfig } from '@agent-memory/memory-config';
// The admin server's metrics, reused: the worker exports the same names and serves them the same way.
import { MemoryMetrics } from '../../api/src/metrics/memory-metrics';
import {
  METRICS_ADDRESS,
  MetricsPortServer,
  type MetricsAddress,
} from '../../api/src/metrics/metrics-port.server';
import { compactionWorkerController } from './compaction-worker.controller';
import { workerMemoryOptions } from './worker-memory.options';

/** Injection token of the worker's validated {@link MemoryConfig}. */
export const WORKER_MEMORY_CONFIG = getConfigToken('memory');

/** What the worker measures and where it serves `/metrics`. */
export interface WorkerMetricsOptions {
  /** Default: a registry of its own with the process's default metrics. */
  metrics?: MemoryMetrics;
  /** Default: no metrics server (`METRICS_PORT` unset). */
  address?: MetricsAddress;
}

/**
 * The compaction worker: the memory backend and an inline `CompactionService` (from
 * `MemoryModule`), the controller that answers checks on `COMPACTION_NATS_SUBJECT`, and its
 * Prometheus metrics (the admin server's {@link MemoryMetrics}: operations on the backend,
 * compactions, process) on `METRICS_PORT` when set.
 */
@Module({})
export class WorkerModule {
  /**
   * @param config the environment, parsed and validated once by `main.ts`.
   * @param observability the metrics and where to serve them (`workerMetricsAddress`).
   */
  static forRoot(config: MemoryConfig, observability: WorkerMetricsOptions = {}): DynamicModule {
    const metrics = observability.metrics ?? new MemoryMetrics();
    const address = observability.address ?? { host: '127.0.0.1', port: null };
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
          useFactory: (memory: MemoryConfig) => workerMemoryOptions(memory, metrics),
        }),
      ],
      providers: [
        { provide: MemoryMetrics, useValue: metrics },
        { provide: METRICS_ADDRESS, useValue: address },
        MetricsPortServer,
      ],
      controllers: [compactionWorkerController(config.compactionSubject)],
    };
  }
}
