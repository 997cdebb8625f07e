import type { MemoryBackend } from '../core/backend.interface';
import { DEFAULT_HEALTH_TIMEOUT_MS } from '../core/defaults';
import { driverOfBackend } from '../core/driver-lookup';
import type { MemoryDriver } from '../core/memory-driver';
import {
  HealthTimeoutError,
  readinessByCheck,
  type MemoryReadiness,
  type MemoryReadinessOptions,
} from '../core/memory-readiness';
import { withTimeout } from '../core/timeout';
import { BUILT_IN_DRIVERS } from './built-in-drivers';

/** Options of {@link checkMemoryReadiness}. */
export interface CheckMemoryReadinessOptions extends MemoryReadinessOptions {
  /** The drivers that may own the backend's store. Default {@link BUILT_IN_DRIVERS}. */
  drivers?: readonly MemoryDriver[];
}

/**
 * Whether `backend` can serve now, as its store's driver probes it: PostgreSQL reachable and
 * migrated (the tables, columns, triggers and save procedure exist, whoever ran the migrations),
 * NATS connected with its bucket bound, a JSON-file folder writable, and `backend.check()` for a
 * store no driver owns. Never throws and never waits longer than `timeoutMs`. Used by the admin
 * server's `/health/ready`, the worker's heartbeat and `MemoryHealthModule`.
 */
export async function checkMemoryReadiness(
  backend: MemoryBackend,
  opts: CheckMemoryReadinessOptions = {},
): Promise<MemoryReadiness> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
  const driven = driverOfBackend(opts.drivers ?? BUILT_IN_DRIVERS, backend);
  const what = driven ? driven.driver.describe(driven.store) : `the ${backend.kind} memory backend`;
  try {
    return await withTimeout(
      Promise.resolve().then(() =>
        driven ? driven.driver.readiness(driven.store) : readinessByCheck(backend),
      ),
      timeoutMs,
      () => new HealthTimeoutError(what, timeoutMs),
    );
  } catch (error) {
    return {
      ready: false,
      kind: backend.kind,
      details: driven ? driven.driver.readinessDetails(driven.store) : {},
      missing: [],
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}
