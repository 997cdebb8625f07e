import type { CompactionJob } from './compaction-job';

/**
 * A compaction job as the shared job store keeps it: the job, which process answers for it, and
 * until when.
 */
export interface StoredCompactionJob extends CompactionJob {
  /** The process that runs (or queued) the job; opaque, random per process. */
  owner: string;
  /**
   * Epoch ms until which the owner vouches for a `queued` or `running` job; it renews this while
   * it lives. Past it, readers report the job failed (`JOB_OWNER_LOST`).
   */
  leaseExpiresAt: number;
  /** Epoch ms after which the job is forgotten; stores may delete it from then on. */
  expiresAt: number;
}

/**
 * Where compaction job states live so that every replica can answer `GET /api/compactions/:id`
 * (the port behind `CompactionService`'s shared jobs). The module's default keeps them in this
 * process ({@link InMemoryCompactionJobStore}); the PostgreSQL, NATS and JSON-file entry points
 * each have one that keeps them next to the sessions.
 *
 * Writes of one job come from its one owner, in order, so `put` needs no compare-and-swap. A record
 * several processes write (a session's last compaction) goes through `putIfNewer`, which compares.
 * A store returns what it holds, expired or not (the caller compares `expiresAt` with its clock),
 * and deletes expired jobs in its own time.
 */
export interface CompactionJobStore {
  /** Inserts or replaces the job (keyed by `id`, a UUID). */
  put(job: StoredCompactionJob): Promise<void>;
  /**
   * Inserts or replaces the job unless the one stored under its id finished later (`finishedAt`;
   * a job without one counts as oldest), as one atomic step against other processes' writes: when
   * two replicas record jobs under one id at once, the job that finished last stays, whichever
   * write lands last. Resolves with whether it stored the job.
   */
  putIfNewer(job: StoredCompactionJob): Promise<boolean>;
  /**
   * Inserts or replaces the job unless the one stored under its id is held by another process
   * ({@link heldByAnother}: `queued` or `running`, another `owner`, its lease not over at `now`,
   * epoch ms), as one atomic step against other processes' writes: of two processes claiming a
   * free id at once, exactly one stores its job. Resolves with whether it stored the job. A lease
   * for work only one replica may do at a time (the retention sweep). Optional for a store of
   * your own; every built-in store has it.
   */
  claim?(job: StoredCompactionJob, now: number): Promise<boolean>;
  /** The job with that id, or null. `jobId` is already checked to be a UUID-like token. */
  get(jobId: string): Promise<StoredCompactionJob | null>;
  /**
   * Deletes every job of these sessions (what erasing a resource does: a job's result holds the
   * summary it wrote). Resolves with how many it deleted.
   */
  deleteForSessions(sessionIds: readonly string[]): Promise<number>;
}

/**
 * Whether `stored` is a job another process still answers for, so that `job` may not replace it
 * (see {@link CompactionJobStore.claim}).
 */
export function heldByAnother(
  stored: StoredCompactionJob | null,
  job: StoredCompactionJob,
  now: number,
): boolean {
  return (
    stored !== null &&
    (stored.state === 'queued' || stored.state === 'running') &&
    stored.owner !== job.owner &&
    stored.leaseExpiresAt > now
  );
}
