import { randomUUID } from 'node:crypto';
import type { CompactionJob } from '../core/compaction-job';
import { consoleCompactionLogger, type CompactionLogger } from './compaction-job.interface';
import type {
  CompactionJobStore,
  StoredCompactionJob,
} from '../core/compaction-job-store.interface';
import { InMemoryCompactionJobStore } from './in-memory-compaction-job.store';
import { DEFAULT_COMPACTION_JOB_LEASE_MS, DEFAULT_COMPACTION_JOB_TTL_MS } from '../core/defaults';

/** The code of a job reported failed because the process that ran it stopped renewing it. */
export const JOB_OWNER_LOST = 'JOB_OWNER_LOST';

/** Job ids a lookup accepts: ours are UUIDs; anything else is unknown without touching the store. */
const JOB_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** Options of {@link SharedCompactionJobs} (the module's `compaction.jobs`). */
export interface SharedCompactionJobsOptions {
  /** Where the states go; default a map in this process ({@link InMemoryCompactionJobStore}). */
  store?: CompactionJobStore;
  /** How long a job is kept after its last change (ms). Default {@link DEFAULT_COMPACTION_JOB_TTL_MS}. */
  ttlMs?: number;
  /**
   * A queued or running job whose process has not renewed it for this long is reported failed
   * (ms). The process renews every third of it. Default {@link DEFAULT_COMPACTION_JOB_LEASE_MS}.
   */
  leaseMs?: number;
  /** The clock leases and expiry are measured with (epoch ms). Default `Date.now`. */
  now?: () => number;
  /** Told once about every job that ends, shared or not (see {@link SharedCompactionJobs.finished}). */
  onFinished?: (job: CompactionJob) => void;
  /** Where failed writes and a throwing `onFinished` are reported. Default: `console.warn`. */
  logger?: CompactionLogger;
}

/**
 * The compaction jobs of this process as every replica sees them: each change of a shared job is
 * written to the {@link CompactionJobStore} (in order per job), a heartbeat renews the lease of
 * the jobs still queued or running, and {@link lookup} answers for jobs of any process, reporting
 * a job whose owner stopped renewing it as failed (`JOB_OWNER_LOST`) once its lease is over.
 */
export class SharedCompactionJobs {
  private readonly logger: CompactionLogger;
  /** This process, as the jobs' `owner`. */
  readonly owner = randomUUID();
  readonly store: CompactionJobStore;
  readonly ttlMs: number;
  readonly leaseMs: number;
  private readonly now: () => number;
  private readonly onFinished: ((job: CompactionJob) => void) | undefined;
  /** The last write of each job with a write in flight. */
  private readonly writes = new Map<string, Promise<void>>();
  /** Queued or running shared jobs, renewed by the heartbeat. */
  private readonly live = new Map<string, CompactionJob>();
  private heartbeat: NodeJS.Timeout | null = null;

  /** @throws RangeError when `ttlMs` or `leaseMs` is not a positive whole number. */
  constructor(options: SharedCompactionJobsOptions = {}) {
    this.ttlMs = positive('compaction.jobs.ttlMs', options.ttlMs, DEFAULT_COMPACTION_JOB_TTL_MS);
    this.leaseMs = positive(
      'compaction.jobs.leaseMs',
      options.leaseMs,
      DEFAULT_COMPACTION_JOB_LEASE_MS,
    );
    this.now = options.now ?? Date.now;
    this.onFinished = options.onFinished;
    this.logger = options.logger ?? consoleCompactionLogger;
    this.store = options.store ?? new InMemoryCompactionJobStore(this.now);
  }

  /**
   * Writes the job's state as it is now (a copy), after the job's earlier writes. A queued or
   * running job is renewed by the heartbeat from then on, until it is written finished.
   * @returns when the write is stored; rejects with the store's error (later writes still run).
   */
  record(job: CompactionJob): Promise<void> {
    const snapshot = { ...job };
    if (snapshot.state === 'queued' || snapshot.state === 'running') {
      this.live.set(snapshot.id, snapshot);
      this.startHeartbeat();
    } else {
      this.live.delete(snapshot.id);
    }
    const previous = this.writes.get(snapshot.id) ?? Promise.resolve();
    const write = previous.catch(() => undefined).then(() => this.store.put(this.stored(snapshot)));
    this.writes.set(snapshot.id, write);
    void write.then(
      () => this.forgetWrite(snapshot.id, write),
      () => this.forgetWrite(snapshot.id, write),
    );
    return write;
  }

  /** Reports a job of this process that ended (`done` or `failed`) to `onFinished`; never throws. */
  finished(job: CompactionJob): void {
    try {
      this.onFinished?.({ ...job });
    } catch (error) {
      this.logger.warn(
        `compaction.jobs.onFinished threw: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /**
   * The job as the store has it, from any process; null when unknown or expired. A job still
   * `queued` or `running` whose lease is over is reported `failed` with code `JOB_OWNER_LOST`.
   * @throws the store's error when it cannot be read.
   */
  async lookup(jobId: string): Promise<CompactionJob | null> {
    if (!JOB_ID_PATTERN.test(jobId)) return null;
    const stored = await this.store.get(jobId);
    const now = this.now();
    if (!stored || stored.expiresAt <= now) return null;
    const { owner: _owner, leaseExpiresAt, expiresAt: _expiresAt, ...job } = stored;
    if ((job.state === 'queued' || job.state === 'running') && leaseExpiresAt <= now) {
      return {
        ...job,
        state: 'failed',
        finishedAt: new Date(leaseExpiresAt).toISOString(),
        error: {
          name: 'CompactionJobLostError',
          code: JOB_OWNER_LOST,
          message: `the process that ${job.state === 'running' ? 'ran' : 'queued'} this job stopped answering for it; start a new compaction`,
        },
      };
    }
    return job;
  }

  /** Waits for the writes in flight (their failures are logged, not thrown) and stops the heartbeat. */
  async close(): Promise<void> {
    this.stopHeartbeat();
    await Promise.allSettled([...this.writes.values()]);
  }

  private stored(job: CompactionJob): StoredCompactionJob {
    const now = this.now();
    return {
      ...job,
      owner: this.owner,
      leaseExpiresAt: now + this.leaseMs,
      expiresAt: now + this.ttlMs,
    };
  }

  private forgetWrite(jobId: string, write: Promise<void>): void {
    if (this.writes.get(jobId) === write) this.writes.delete(jobId);
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => this.renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private renew(): void {
    if (this.live.size === 0) return this.stopHeartbeat();
    for (const job of this.live.values()) {
      // A renewal that fails is retried on the next beat; the lease allows two misses.
      this.record(job).catch((error: unknown) =>
        this.logger.warn(
          `could not renew compaction job ${job.id}: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }
  }
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive whole number of milliseconds, got ${value}`);
  }
  return value;
}
