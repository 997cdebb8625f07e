import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import { checkMemoryReadiness } from '../drivers/memory-readiness';
import type { MemoryHealthOptions } from './memory.health';

/**
 * The Terminus result of {@link checkMemoryReadiness} under `key`: `up` with the backend's kind and
 * details, or `down` with them, what is `missing` (when something is) and the reason as `message`.
 */
export async function readinessResult<const Key extends string>(
  indicators: HealthIndicatorService,
  backend: MemoryBackend,
  key: Key,
  opts: MemoryHealthOptions,
): Promise<HealthIndicatorResult<Key>> {
  const indicator = indicators.check(key);
  const readiness = await checkMemoryReadiness(backend, opts);
  const data = { kind: readiness.kind, ...readiness.details };
  if (readiness.ready) return indicator.up(data);
  return indicator.down({
    ...data,
    ...(readiness.missing.length > 0 ? { missing: readiness.missing } : {}),
    message: readiness.reason,
  });
}
