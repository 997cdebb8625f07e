import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { StatsFs } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Gauge } from 'prom-client';
import {
  checkMemoryReadiness,
  CompactionService,
  InjectMemoryBackend,
  type MemoryBackend,
} from '@agent-memory/memory';
import { API_CONFIG } from '../config/api-config.module';
import type { ApiConfig } from '../config/api-config';
import { drivenStore } from '../memory-store/memory-store';
import { MemoryMetrics } from './memory-metrics';

/** How long a scrape waits for the backend's check before reporting it down (ms). */
export const SCRAPE_BACKEND_CHECK_TIMEOUT_MS = 2000;

/**
 * Gauges measured when Prometheus scrapes, for the alert rules in `docker/prometheus/`:
 * - `agent_memory_backend_up{backend}`: 1 when the backend passed the readiness check
 *   (`checkMemoryReadiness`) within {@link SCRAPE_BACKEND_CHECK_TIMEOUT_MS}, else 0;
 * - `agent_memory_compaction_jobs{state}` (queued, running) and
 *   `agent_memory_compaction_oldest_job_age_seconds`: this process's unfinished compaction jobs
 *   and how long the oldest of them has existed (0 when none);
 * - `agent_memory_storage_free_bytes{backend}` and `agent_memory_storage_size_bytes{backend}`:
 *   the filesystem under `MEMORY_DIR` (JSON files only; PostgreSQL and NATS keep their data on
 *   their own servers, watched by their exporters).
 */
@Injectable()
export class ScrapeTimeMetrics implements OnModuleInit, OnModuleDestroy {
  private readonly names: string[] = [];

  constructor(
    private readonly metrics: MemoryMetrics,
    @InjectMemoryBackend() private readonly backend: MemoryBackend,
    private readonly compaction: CompactionService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  onModuleInit(): void {
    const { compaction, config } = this;
    const memory = this.backend;
    const backend = config.backend;
    this.gauge({
      name: 'agent_memory_backend_up',
      help: `1 when the memory backend was ready (reachable, migrated, writable) within ${SCRAPE_BACKEND_CHECK_TIMEOUT_MS} ms at scrape time, else 0`,
      labelNames: ['backend'],
      async collect() {
        const readiness = await checkMemoryReadiness(memory, {
          timeoutMs: SCRAPE_BACKEND_CHECK_TIMEOUT_MS,
        });
        this.set({ backend }, readiness.ready ? 1 : 0);
      },
    });
    this.gauge({
      name: 'agent_memory_compaction_jobs',
      help: "This process's unfinished compaction jobs by state (queued, running)",
      labelNames: ['state'],
      collect() {
        const backlog = compaction.backlog();
        this.set({ state: 'queued' }, backlog.queued);
        this.set({ state: 'running' }, backlog.running);
      },
    });
    this.gauge({
      name: 'agent_memory_compaction_oldest_job_age_seconds',
      help: "Age of this process's oldest queued or running compaction job (0 when there is none)",
      collect() {
        const oldest = compaction.backlog().oldestCreatedAt;
        this.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest.getTime()) / 1000));
      },
    });
    // Only a store on a local filesystem has one whose free space matters (JSON files).
    const { driver, store } = drivenStore(memory);
    const storagePath = driver.storagePath(store);
    if (storagePath === null) return;
    const filesystem = () => filesystemUnder(storagePath);
    this.gauge({
      name: 'agent_memory_storage_free_bytes',
      help: 'Bytes an unprivileged writer may still use on the filesystem under MEMORY_DIR',
      labelNames: ['backend'],
      async collect() {
        const stats = await filesystem();
        if (stats) this.set({ backend }, stats.bavail * stats.bsize);
        else this.reset();
      },
    });
    this.gauge({
      name: 'agent_memory_storage_size_bytes',
      help: 'Size of the filesystem under MEMORY_DIR',
      labelNames: ['backend'],
      async collect() {
        const stats = await filesystem();
        if (stats) this.set({ backend }, stats.blocks * stats.bsize);
        else this.reset();
      },
    });
  }

  onModuleDestroy(): void {
    for (const name of this.names.splice(0)) this.metrics.registry.removeSingleMetric(name);
  }

  private gauge(config: ConstructorParameters<typeof Gauge<string>>[0]): void {
    new Gauge({ ...config, registers: [this.metrics.registry] });
    this.names.push(config.name);
  }
}

/**
 * The filesystem `path` is (or will be) on: that of its nearest existing folder, since the JSON-file
 * store creates its folder on first use. Null when none can be read, so that the gauges stay empty
 * rather than failing the whole scrape.
 */
async function filesystemUnder(path: string): Promise<StatsFs | null> {
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      return await statfs(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) return null;
    }
  }
}
