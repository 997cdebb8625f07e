import { throwIfAborted } from '../core/abort';
import type { MemoryBackend, SessionInfo } from '../core/backend.interface';
import type { CompactionJobStore } from '../core/compaction-job-store.interface';
import { canPruneCovered } from '../core/covered-log-pruning';
import { DEFAULT_COMPACTION_JOB_LEASE_MS } from '../core/defaults';
import type { CallOptions } from '../core/memory.interface';
import type { SessionChangedError } from '../core/errors';
import { InMemoryLeaseStore } from '../core/in-memory-lease.store';
import { keepsWholeLog } from '../core/kept-log';
import type { LeaseStore } from '../core/lease-store.interface';
import { compactionJobLeases, RetentionLease } from './retention-lease';
import {
  RETENTION_KEEP,
  RETENTION_META_KEY,
  resolveRetentionPolicy,
  type ResolvedRetentionPolicy,
  type RetentionAction,
  type RetentionPolicy,
} from './retention-policy';

/** The code of {@link SessionChangedError}: a conditional delete found the session changed. */
const SESSION_CHANGED: SessionChangedError['code'] = 'SESSION_CHANGED';

/** Sessions a sweep reads per `backend.list` page. */
export const DEFAULT_RETENTION_BATCH_SIZE = 100;

/** Options of {@link RetentionSweeper}. */
export interface RetentionSweeperOptions {
  policy: RetentionPolicy;
  /**
   * Where the lease that keeps one sweep at a time lives: the lease store the replicas share, next
   * to the sessions (the store's driver's `leaseStore(backend)`: a PostgreSQL table, a NATS
   * bucket, a folder of JSON files). Default a store in this process (one replica).
   */
  leases?: LeaseStore;
  /**
   * @deprecated pass `leases`. A compaction job store to keep the lease in as a job record; used
   * only when `leases` is not given.
   */
  jobs?: CompactionJobStore;
  /** A sweep that stops renewing its lease for this long loses it (ms). Default 30000. */
  leaseMs?: number;
  /** Sessions per `backend.list` page (1–500); the lease is renewed between pages. Default 100. */
  batchSize?: number;
  /** The clock (epoch ms). Default `Date.now`. */
  now?: () => number;
  /** Told about each session a sweep (not a dry run) expired, such as to count it. */
  onExpired?: (sessionId: string, action: RetentionAction) => void;
}

/** Options of {@link RetentionSweeper.sweep}. */
export interface RetentionSweepOptions extends CallOptions {
  /** Report what would expire and change nothing (no lease is taken). Default false. */
  dryRun?: boolean;
}

/** What one sweep did (or, on a dry run, would do). */
export interface RetentionSweepResult {
  /** The sessions expired (or that would be), in the order met (newest `updatedAt` first). */
  expired: string[];
  action: RetentionAction;
  dryRun: boolean;
  /** False when another process held the sweep's lease: this one did nothing. */
  ran: boolean;
}

/**
 * Applies a {@link RetentionPolicy} to every session of a backend through the `MemoryBackend`
 * port, so it works on every store: walks `backend.list` in pages, and deletes the expired
 * sessions or reduces them to their latest snapshot. A session whose metadata has
 * `retention = "keep"` is never touched; under `keep-summary`, a session without a snapshot is
 * left alone (there is no summary to keep) and one already reduced is not counted again.
 *
 * A sweep that changes something holds a lease in the shared lease store, so at most one
 * replica sweeps at a time; a sweep that finds the lease taken returns `ran: false`.
 */
export class RetentionSweeper {
  readonly policy: ResolvedRetentionPolicy;
  private readonly leases: LeaseStore;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly now: () => number;

  /** @throws RangeError when the policy or `batchSize` is out of range. */
  constructor(
    private readonly backend: MemoryBackend,
    private readonly options: RetentionSweeperOptions,
  ) {
    this.policy = resolveRetentionPolicy(options.policy);
    this.now = options.now ?? Date.now;
    this.batchSize = options.batchSize ?? DEFAULT_RETENTION_BATCH_SIZE;
    if (!Number.isSafeInteger(this.batchSize) || this.batchSize < 1 || this.batchSize > 500) {
      throw new RangeError(
        `retention batchSize must be a whole number from 1 to 500, got ${this.batchSize}`,
      );
    }
    this.leases =
      options.leases ??
      (options.jobs ? compactionJobLeases(options.jobs, this.now) : new InMemoryLeaseStore());
    this.leaseMs = options.leaseMs ?? DEFAULT_COMPACTION_JOB_LEASE_MS;
  }

  /**
   * Runs one sweep over every session. A sweep that changes something takes the lease under an
   * owner of its own, so two sweeps at once in one process exclude each other as two replicas do.
   * @throws the backend's or lease store's error; what was expired before it stays expired.
   */
  async sweep(opts: RetentionSweepOptions = {}): Promise<RetentionSweepResult> {
    const dryRun = opts.dryRun ?? false;
    const result = { expired: [] as string[], action: this.policy.action, dryRun, ran: true };
    if (dryRun) {
      await this.walk(result.expired, null, opts);
      return result;
    }
    const lease = new RetentionLease(this.leases, this.leaseMs, this.now);
    if (!(await lease.acquire())) return { ...result, ran: false };
    try {
      await this.walk(result.expired, lease, opts);
    } finally {
      await lease.release();
    }
    return result;
  }

  /** Walks every page; `lease` null is a dry run. */
  private async walk(
    expired: string[],
    lease: RetentionLease | null,
    opts: CallOptions,
  ): Promise<void> {
    const dryRun = lease === null;
    let after: string | undefined;
    do {
      throwIfAborted(opts);
      const page = await this.backend.list({ limit: this.batchSize, after });
      for (const info of page.items) {
        throwIfAborted(opts);
        if (await this.expire(info, dryRun)) expired.push(info.id);
      }
      after = page.next ?? undefined;
      // A sweep that lost its lease (it stalled past it) stops: another replica may have begun.
      if (after !== undefined && lease && !(await lease.acquire())) return;
    } while (after !== undefined);
  }

  /** Applies the action to one listed session when it has expired; whether it did (or would). */
  private async expire(listed: SessionInfo, dryRun: boolean): Promise<boolean> {
    if (!(await this.isExpired(listed))) return false;
    if (dryRun) return this.policy.action === 'delete' || (await this.hasCovered(listed));
    // Checked again just before acting: a write since the page was read may have renewed it.
    const current = await this.backend.inspect(listed.id);
    if (!current || !(await this.isExpired(current))) return false;
    if (this.policy.action === 'delete') {
      // Deleted only as judged: a write landing after the check above makes the store refuse.
      if (!(await this.deleteUnchanged(current))) return false;
    } else if (!current.hasSnapshot || (await this.pruneUnchanged(current)) === 0) {
      return false;
    }
    this.options.onExpired?.(current.id, this.policy.action);
    return true;
  }

  /** Deletes the session if it is still as `judged`; false when a write came in between. */
  private async deleteUnchanged(judged: SessionInfo): Promise<boolean> {
    return (
      (await unlessChanged(async () => {
        await this.backend.delete(judged.id, { ifUnchanged: judged });
        return true;
      })) ?? false
    );
  }

  private async isExpired(info: SessionInfo): Promise<boolean> {
    if (info.meta[RETENTION_META_KEY] === RETENTION_KEEP) return false;
    // keep-summary drops covered messages, which a session keeping its whole log never loses.
    if (this.policy.action === 'keep-summary' && (!info.hasSnapshot || keepsWholeLog(info.meta))) {
      return false;
    }
    const now = this.now();
    const updatedAt = Date.parse(info.updatedAt);
    const { maxIdleMs, maxAgeMs } = this.policy;
    if (maxIdleMs !== null && now - updatedAt > maxIdleMs) return true;
    if (maxAgeMs === null) return false;
    // A session is never younger than its last write: old enough by that, no read is needed.
    if (now - updatedAt > maxAgeMs) return true;
    return now - (await this.firstSavedAt(info.id, updatedAt)) > maxAgeMs;
  }

  /**
   * When the oldest kept message was saved (epoch ms). Without a time (data from before `savedAt`
   * existed, or nothing kept), `fallback`: a later time, so a session is never expired early.
   */
  private async firstSavedAt(sessionId: string, fallback: number): Promise<number> {
    const store = await this.backend.open(sessionId);
    const [first] = await store.entries({ limit: 1 });
    const savedAt = first?.savedAt === undefined ? Number.NaN : Date.parse(first.savedAt);
    return Number.isNaN(savedAt) ? fallback : savedAt;
  }

  /** Whether the session still keeps messages its snapshot covers (what keep-summary drops). */
  private async hasCovered(info: SessionInfo): Promise<boolean> {
    if (info.snapshotUpTo === null) return false;
    const [first] = await (await this.backend.open(info.id)).entries({ limit: 1 });
    return first !== undefined && first.cursor <= info.snapshotUpTo;
  }

  /** Drops the covered messages if the session is still as `judged`; 0 when a write came in between. */
  private async pruneUnchanged(judged: SessionInfo): Promise<number> {
    const store = await this.backend.open(judged.id);
    if (!canPruneCovered(store)) {
      throw new TypeError(
        `retention keep-summary needs a store that can prune covered messages; the ${this.backend.kind} backend's cannot`,
      );
    }
    return (await unlessChanged(() => store.pruneCovered({ ifUnchanged: judged }))) ?? 0;
  }
}

/** `act`'s result, or null when it found the session changed since it was judged. */
async function unlessChanged<T>(act: () => Promise<T>): Promise<T | null> {
  try {
    return await act();
  } catch (error) {
    // By code, not class: a backend of your own may throw another copy of the package's error.
    if ((error as { code?: unknown } | null)?.code === SESSION_CHANGED) return null;
    throw error;
  }
}
