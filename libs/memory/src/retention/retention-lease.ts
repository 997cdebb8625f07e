import { randomUUID } from 'node:crypto';
import type {
  CompactionJobStore,
  StoredCompactionJob,
} from '../core/compaction-job-store.interface';
import type { LeaseRecord, LeaseStore } from '../core/lease-store.interface';

/** The name of the sweep's lease in a {@link LeaseStore}. */
export const RETENTION_SWEEP_LEASE = 'retention-sweep';

/**
 * The id under which {@link compactionJobLeases} keeps the sweep's lease in a compaction job store.
 * @deprecated leases have a store of their own (`LeaseStore`); this names the earlier record.
 */
export const RETENTION_SWEEP_JOB_ID = RETENTION_SWEEP_LEASE;

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
 * The right to sweep, held by one process at a time: the lease {@link RETENTION_SWEEP_LEASE} in
 * the store's {@link LeaseStore}, taken and renewed with its atomic `claim` and given up with
 * `release`. A holder that stops renewing loses it when its lease is over, so a crashed replica
 * never blocks the sweep for longer than that.
 */
export class RetentionLease {
  /** This holder (one sweep): random per lease, never shared. */
  readonly owner = randomUUID();

  constructor(
    private readonly leases: LeaseStore,
    private readonly leaseMs: number,
    private readonly now: () => number,
  ) {}

  /** Takes the lease, or renews it while held; false when another process holds it. */
  acquire(): Promise<boolean> {
    const now = this.now();
    return this.leases.claim(RETENTION_SWEEP_LEASE, this.owner, now + this.leaseMs, now);
  }

  /** Gives the lease up (a no-op when another holder has taken it meanwhile: theirs stays). */
  release(): Promise<void> {
    return this.leases.release(RETENTION_SWEEP_LEASE, this.owner);
  }
}

/**
 * Leases kept as job records in a compaction job store (`running` while held, `done` once
 * released), as the sweep kept its lease before stores had a lease record of their own.
 * @deprecated give the sweeper the store's `LeaseStore` (its driver's `leaseStore`).
 * @throws TypeError when `jobs` has no `claim`.
 */
export function compactionJobLeases(
  jobs: CompactionJobStore,
  now: () => number = Date.now,
): LeaseStore {
  assertLeaseStore(jobs);
  const record = (
    name: string,
    owner: string,
    state: 'running' | 'done',
    leaseExpiresAt: number,
  ): StoredCompactionJob => {
    const at = new Date(now()).toISOString();
    return {
      id: name,
      sessionId: name,
      force: false,
      dryRun: false,
      state,
      createdAt: at,
      startedAt: at,
      ...(state === 'done' ? { finishedAt: at } : {}),
      owner,
      leaseExpiresAt,
      expiresAt: Math.max(leaseExpiresAt, now() + SWEEP_RECORD_TTL_MS),
    };
  };
  return {
    claim: (name, owner, expiresAt, at) =>
      jobs.claim!(record(name, owner, 'running', expiresAt), at),
    async release(name, owner) {
      const at = now();
      await jobs.claim!(record(name, owner, 'done', at), at);
    },
    async get(name): Promise<LeaseRecord | null> {
      const job = await jobs.get(name);
      return job && job.state === 'running'
        ? { owner: job.owner, expiresAt: job.leaseExpiresAt }
        : null;
    },
  };
}
