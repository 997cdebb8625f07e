import { parseDuration, type Duration } from './duration';

/**
 * What retention does to an expired session: `delete` removes it (messages, snapshot, metadata
 * and, on a backend with recall, its vectors); `keep-summary` keeps its latest snapshot, the
 * messages after it and its metadata, and drops the messages the snapshot covers.
 */
export type RetentionAction = 'delete' | 'keep-summary';

/** The retention actions, for validation. */
export const RETENTION_ACTIONS: readonly RetentionAction[] = ['delete', 'keep-summary'];

/**
 * How long a backend keeps sessions. A session expires when it is idle longer than `maxIdle`
 * (since its last write, `updatedAt`) or older than `maxAge` (since its first kept message was
 * saved); at least one of the two must be set.
 */
export interface RetentionPolicy {
  /** Longest time since a session's first save (a {@link Duration}). */
  maxAge?: Duration;
  /** Longest time since a session's last write (a {@link Duration}). */
  maxIdle?: Duration;
  action: RetentionAction;
}

/** A {@link RetentionPolicy} checked, with its durations in milliseconds (null: not set). */
export interface ResolvedRetentionPolicy {
  maxAgeMs: number | null;
  maxIdleMs: number | null;
  action: RetentionAction;
}

/** The metadata key that exempts a session from retention, with the value {@link RETENTION_KEEP}. */
export const RETENTION_META_KEY = 'retention';

/** `retention = "keep"` in a session's metadata: retention never touches it. */
export const RETENTION_KEEP = 'keep';

/**
 * Checks `policy` and converts its durations.
 * @throws RangeError naming the field (`retention.maxIdle`, `retention.action`) that is wrong, or
 * saying that neither `maxAge` nor `maxIdle` is set.
 */
export function resolveRetentionPolicy(policy: RetentionPolicy): ResolvedRetentionPolicy {
  if (!RETENTION_ACTIONS.includes(policy.action)) {
    throw new RangeError(
      `retention.action must be one of ${RETENTION_ACTIONS.join(', ')}, got ${JSON.stringify(policy.action)}`,
    );
  }
  const maxAgeMs =
    policy.maxAge === undefined ? null : parseDuration('retention.maxAge', policy.maxAge);
  const maxIdleMs =
    policy.maxIdle === undefined ? null : parseDuration('retention.maxIdle', policy.maxIdle);
  if (maxAgeMs === null && maxIdleMs === null) {
    throw new RangeError('retention needs maxAge, maxIdle or both: with neither nothing expires');
  }
  return { maxAgeMs, maxIdleMs, action: policy.action };
}
