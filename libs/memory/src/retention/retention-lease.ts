import { randomUUID } from 'node:crypto';
import type {
  CompactionJobStore,
  StoredCompactionJob,
} from '../core/compaction-job-store.interface';

/** The id under which the sweep's lease is kept in the compaction job store. */
export const RETENTION_SWEEP_JOB_ID = 'retention-sweep';

/** How long the record of the last sweep is kept after it ends (ms): a day. */
const SWEEP_RECORD_TTL_MS = 86_400_000;

/**
 * @throws TypeError when `store` has no `claim`, so cannot hold the sweep's lease (a store of your
 * own written before it existed).
 */
export function assertLeaseStore(store: CompactionJobStore): void {
  if (typeof store.claim !== 'function') {
    throw new TypeError(
      'retention needs a compaction job store with claim() to keep one sweep at a time; the built-in stores have it',
    );
  }
}

/**
 * The right to sweep, held by one process at a time: a `running` job record under
 * {@link RETENTION_SWEEP_JOB_ID} in the shared compaction job store, taken and renewed with the
 * store's atomic `claim` and given up by writing it `done`. A holder that stops renewing loses it
 * when its lease is over, so a crashed replica never blocks the sweep for longer than that.
 */
export class RetentionLease {
  /** This holder (one sweep), as the record's `owner`: random per lease, never shared. */
  readonly owner = randomUUID();
  private startedAt: string | null = null;

  /**
   * @throws TypeError when `store` has no `claim` (a store of your own written before it existed).
   */
  constructor(
    private readonly store: CompactionJobStore,
    private readonly leaseMs: number,
    private readonly now: () => number,
  ) {
    assertLeaseStore(store);
  }

  /** Takes the lease, or renews it while held; false when another process holds it. */
  async acquire(): Promise<boolean> {
    const now = this.now();
    this.startedAt ??= new Date(now).toISOString();
    const held = await this.store.claim!(this.record('running', now), now);
    if (!held) this.startedAt = null;
    return held;
  }

  /** Gives the lease up (a no-op when another holder has taken it meanwhile: theirs stays). */
  async release(): Promise<void> {
    const now = this.now();
    await this.store.claim!(this.record('done', now), now);
    this.startedAt = null;
  }

  private record(state: 'running' | 'done', now: number): StoredCompactionJob {
    const at = new Date(now).toISOString();
    return {
      id: RETENTION_SWEEP_JOB_ID,
      sessionId: RETENTION_SWEEP_JOB_ID,
      force: false,
      dryRun: false,
      state,
      createdAt: this.startedAt ?? at,
      startedAt: this.startedAt ?? at,
      ...(state === 'done' ? { finishedAt: at } : {}),
      owner: this.owner,
      leaseExpiresAt: now + this.leaseMs,
      expiresAt: now + Math.max(this.leaseMs, SWEEP_RECORD_TTL_MS),
    };
  }
}
