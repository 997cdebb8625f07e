import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import { MEMORY_BACKEND } from '../nest/memory.injection';
import { readinessResult } from './readiness-result';

/** Options of one health probe. */
export interface MemoryHealthOptions {
  /** The probe answers `down` when the backend has not answered within this (ms). Default 3000. */
  timeoutMs?: number;
}

/**
 * Terminus indicator for the `MemoryModule`'s backend, of any kind, on `checkMemoryReadiness`:
 * `up` (with the backend's `kind` and details) when it can serve: PostgreSQL reachable and
 * migrated, NATS connected with its bucket bound, JSON files writable; `down` (with what is
 * `missing` and the reason as `message`) otherwise or when it is too slow. It never throws and
 * never hangs. Add it to the providers of a module that imports
 * `TerminusModule` and sees `MemoryModule` (global, or imported there).
 *
 * ```ts
 * @Get('ready') @HealthCheck()
 * ready() { return this.health.check([() => this.memory.isHealthy('memory')]); }
 * ```
 */
@Injectable()
export class MemoryHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend,
  ) {}

  /** Probes the backend; the result's key is `key` (default `memory`), with the backend's `kind`. */
  async isHealthy<const Key extends string = 'memory'>(
    key: Key = 'memory' as Key,
    opts: MemoryHealthOptions = {},
  ): Promise<HealthIndicatorResult<Key>> {
    return readinessResult(this.indicators, this.backend, key, opts);
  }
}
