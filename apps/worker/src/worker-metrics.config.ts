import { ConfigValidationError } from '@agent-memory/memory-config';
import type { MetricsAddress } from '../../api/src/metrics/metrics-port.server';

/** The variables the worker reads for its metrics, besides the memory settings. */
export const WORKER_METRICS_ENV_VARS = ['METRICS_PORT', 'HOST'] as const;

/**
 * Where the worker serves `/metrics`: `METRICS_PORT` (unset: no metrics server; 0: a free port)
 * on `HOST` (default `127.0.0.1`; the image's compose and Kubernetes files set `0.0.0.0`), the
 * same variables as the admin server's metrics port.
 * @throws ConfigValidationError when `METRICS_PORT` is not an integer from 0 to 65535.
 */
export function workerMetricsAddress(env: NodeJS.ProcessEnv): MetricsAddress {
  const host = env.HOST?.trim() || '127.0.0.1';
  const raw = env.METRICS_PORT?.trim();
  if (!raw) return { host, port: null };
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) {
    throw new ConfigValidationError([
      `METRICS_PORT must be an integer from 0 to 65535 (the port of the worker's /metrics), got "${raw}"`,
    ]);
  }
  return { host, port };
}
