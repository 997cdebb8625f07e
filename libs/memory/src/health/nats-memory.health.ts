import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import { MEMORY_BACKEND } from '../nest/memory.injection';
import type { NatsBackend } from '../nats/nats.backend';
import { readinessResult } from './readiness-result';
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
    if (!isNatsBackend(this.backend)) {
      return this.indicators
        .check(key)
        .down({ message: `the memory backend is ${this.backend.kind}, not nats` });
    }
    return readinessResult(this.indicators, this.backend, key, opts);
  }
}

function isNatsBackend(backend: MemoryBackend): backend is NatsBackend {
  return backend.kind === 'nats' && typeof (backend as Partial<NatsBackend>).status === 'function';
}
