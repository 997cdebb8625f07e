import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import { MEMORY_BACKEND } from '../nest/memory.injection';
import { natsDriver } from '../nats/nats.driver';
import { storeReadinessResult } from './store-readiness';
import type { MemoryHealthOptions } from './memory.health';

/**
 * Terminus indicator for a `natsBackend`: `up` with the server, bucket, session count, bytes and
 * size limits when the connection is open and the KV bucket answers within the timeout; `down`
 * otherwise (also when the module's backend is not NATS). Never throws, never hangs.
 */
@Injectable()
export class NatsMemoryHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend,
  ) {}

  /** Probes the connection and the bucket; the result's key is `key` (default `memory_nats`). */
  async isHealthy<const Key extends string = 'memory_nats'>(
    key: Key = 'memory_nats' as Key,
    opts: MemoryHealthOptions = {},
  ): Promise<HealthIndicatorResult<Key>> {
    return storeReadinessResult(this.indicators, natsDriver, this.backend, key, opts);
  }
}
