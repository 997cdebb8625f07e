import {
  parseDuration,
  RETENTION_ACTIONS,
  type RetentionAction,
  type RetentionPolicy,
} from '@agent-memory/memory';
import type { EnvReader } from '@agent-memory/memory-config';

/** The server's retention settings; absent (null) when no `MEMORY_RETENTION_MAX_*` is set. */
export interface RetentionConfig {
  /** `MEMORY_RETENTION_MAX_AGE`, `MEMORY_RETENTION_MAX_IDLE` (durations), `MEMORY_RETENTION_ACTION` (default delete). */
  policy: RetentionPolicy;
  /** `MEMORY_RETENTION_SWEEP_INTERVAL`: time between two periodic sweeps (ms). Default an hour. */
  sweepIntervalMs: number;
}

/** Every environment variable {@link readRetentionConfig} reads. */
export const RETENTION_ENV_VARS = [
  'MEMORY_RETENTION_MAX_AGE',
  'MEMORY_RETENTION_MAX_IDLE',
  'MEMORY_RETENTION_ACTION',
  'MEMORY_RETENTION_SWEEP_INTERVAL',
] as const;

/** Default of `MEMORY_RETENTION_SWEEP_INTERVAL`: an hour. */
export const DEFAULT_RETENTION_SWEEP_INTERVAL_MS = 3_600_000;

/**
 * Reads the retention settings, adding one line per bad variable to `reader.problems` (a duration
 * that does not parse names its variable). Null when neither `MEMORY_RETENTION_MAX_AGE` nor
 * `MEMORY_RETENTION_MAX_IDLE` is set: retention is off, and setting only the action or the
 * interval is reported as a mistake.
 */
export function readRetentionConfig(reader: EnvReader): RetentionConfig | null {
  const duration = (name: string): number | null => {
    const value = reader.string(name);
    if (value === null) return null;
    try {
      return parseDuration(name, value);
    } catch (error) {
      reader.problems.push((error as Error).message);
      return null;
    }
  };
  const maxAge = reader.string('MEMORY_RETENTION_MAX_AGE');
  const maxIdle = reader.string('MEMORY_RETENTION_MAX_IDLE');
  const maxAgeOk = duration('MEMORY_RETENTION_MAX_AGE') !== null;
  const maxIdleOk = duration('MEMORY_RETENTION_MAX_IDLE') !== null;
  const action = reader.oneOf<RetentionAction>(
    'MEMORY_RETENTION_ACTION',
    RETENTION_ACTIONS,
    'delete',
  );
  const interval = duration('MEMORY_RETENTION_SWEEP_INTERVAL');
  if (maxAge === null && maxIdle === null) {
    for (const name of ['MEMORY_RETENTION_ACTION', 'MEMORY_RETENTION_SWEEP_INTERVAL']) {
      if (reader.string(name) !== null) {
        reader.problems.push(
          `${name} is set but retention is off: set MEMORY_RETENTION_MAX_IDLE or MEMORY_RETENTION_MAX_AGE (durations such as 30d)`,
        );
      }
    }
    return null;
  }
  return {
    policy: {
      ...(maxAge !== null && maxAgeOk ? { maxAge } : {}),
      ...(maxIdle !== null && maxIdleOk ? { maxIdle } : {}),
      action,
    },
    sweepIntervalMs: interval ?? DEFAULT_RETENTION_SWEEP_INTERVAL_MS,
  };
}
