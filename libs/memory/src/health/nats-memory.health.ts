import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import { MEMORY_BACKEND } from '../nest/memory.tokens';
import type { NatsBackend } from '../nats/nats.backend';
import { DEFAULT_HEALTH_TIMEOUT_MS, healthMessage, withHealthTimeout } from './health-timeout';
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
    const indicator = this.indicators.check(key);
    if (!isNatsBackend(this.backend)) {
      return indicator.down({ message: `the memory backend is ${this.backend.kind}, not nats` });
    }
    const backend = this.backend;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
    try {
      const status = await withHealthTimeout(`NATS bucket "${backend.bucket}"`, timeoutMs, () =>
        backend.status(),
      );
      return indicator.up({ ...status });
    } catch (error) {
      return indicator.down({ bucket: backend.bucket, message: healthMessage(error) });
    }
  }
}

function isNatsBackend(backend: MemoryBackend): backend is NatsBackend {
  return backend.kind === 'nats' && typeof (backend as Partial<NatsBackend>).status === 'function';
}
