import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import type { MemoryDriver } from '../core/memory-driver';
import { innermostBackend } from '../core/wrapping-backend';
import type { MemoryHealthOptions } from './memory.health';
import { readinessResult } from './readiness-result';

/**
 * {@link readinessResult} for an indicator of one store: `down`, naming both, when `backend`'s
 * store is not `driver`'s.
 */
export function storeReadinessResult<const Key extends string>(
  indicators: HealthIndicatorService,
  driver: MemoryDriver,
  backend: MemoryBackend,
  key: Key,
  opts: MemoryHealthOptions,
): Promise<HealthIndicatorResult<Key>> {
  if (!driver.owns(innermostBackend(backend))) {
    return Promise.resolve(
      indicators
        .check(key)
        .down({ message: `the memory backend is ${backend.kind}, not ${driver.kind}` }),
    );
  }
  return readinessResult(indicators, backend, key, opts);
}
