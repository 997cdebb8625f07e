import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { CompactionJob, CompactionJobStore, StoredCompactionJob } from '@agent-memory/memory';

/** What a stored record of a session's last compaction answers for (never runs again). */
const OWNER = 'last-compaction';

/**
 * A session's record in the job store: a copy of its last job, whose own id is `jobId` (the
 * record's `id` is {@link lastCompactionKey}), or, with `jobId` null, a forget: it lives as long as
 * a record would, so that a record of a job that finished before the forget, written late by
 * another replica, does not bring the session's last compaction back.
 */
type LastCompactionRecord = StoredCompactionJob & { jobId: string | null };

/**
 * The id a session's last compaction is kept under in the compaction job store: a UUID derived
 * from the session id (SHA-256, version nibble 8), so it has the shape every store accepts and
 * never collides with a real job's random UUID.
 */
export function lastCompactionKey(sessionId: string): string {
  const hex = createHash('sha256')
    .update(`agent-memory:last-compaction:${sessionId}`)
    .digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Each session's last finished compaction (done or failed, dry runs included), kept where every
 * replica reads it: a copy of the job under {@link lastCompactionKey} in the same job store as the
 * jobs themselves (the sessions' database, bucket or folder), for the job TTL. Without a shared
 * store (the in-process `simple` backend) it is kept in this process. Every replica writes that
 * one record, so it is written with `putIfNewer`: of two replicas recording at once, the job that
 * finished last stays (a forget counts as finishing when it is asked for).
 */
export class LastCompactions {
  private readonly logger = new Logger('LastCompactions');
  private store: Promise<CompactionJobStore | undefined> = Promise.resolve(undefined);
  private ttlMs = 86_400_000;
  private readonly local = new Map<string, CompactionJob>();
  /**
   * Each session's writes in flight from this process, chained in call order: `putIfNewer` keeps
   * the later finish across replicas, and the chain also orders this process's writes that carry
   * the same millisecond (a forget right after a record).
   */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps the records in `store` (the compaction job store) for `ttlMs`. */
  useStore(store: Promise<CompactionJobStore | undefined>, ttlMs: number): void {
    this.store = store;
    this.ttlMs = ttlMs;
  }

  /**
   * Records a finished job as its session's last when it says something: it compacted, failed, or
   * was asked for (forced or a dry run). A background check below the threshold is not recorded.
   * A failure to store it is logged, not thrown.
   */
  async record(job: CompactionJob): Promise<void> {
    if (job.state === 'done' && !job.result?.compacted && !job.force && !job.dryRun) return;
    await this.inOrder(job.sessionId, () => this.write(job));
  }

  private async write(job: CompactionJob): Promise<void> {
    try {
      const store = await this.store;
      if (!store) {
        this.local.set(job.sessionId, job);
        return;
      }
      const now = this.now();
      const record: LastCompactionRecord = {
        ...job,
        id: lastCompactionKey(job.sessionId),
        owner: OWNER,
        leaseExpiresAt: now,
        expiresAt: now + this.ttlMs,
        // The real job's id stays readable: it is what `GET /api/compactions/:id` knows.
        jobId: job.id,
      };
      await store.putIfNewer(record);
    } catch (error) {
      this.logger.warn(
        `could not record the last compaction of "${job.sessionId}": ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** The session's last finished compaction within the TTL, or null. */
  async last(sessionId: string): Promise<CompactionJob | null> {
    const store = await this.store;
    if (!store) return this.local.get(sessionId) ?? null;
    const stored = (await store.get(lastCompactionKey(sessionId))) as LastCompactionRecord | null;
    if (!stored || stored.expiresAt <= this.now() || stored.sessionId !== sessionId) return null;
    const { owner: _owner, leaseExpiresAt: _lease, expiresAt: _expires, jobId, ...job } = stored;
    if (jobId === null) return null;
    return { ...job, id: jobId ?? job.id };
  }

  /** Forgets a cleared or deleted session's record (a forget replaces the shared one). */
  async forget(sessionId: string): Promise<void> {
    await this.inOrder(sessionId, () => this.erase(sessionId));
  }

  private async erase(sessionId: string): Promise<void> {
    this.local.delete(sessionId);
    const store = await this.store;
    if (!store) return;
    const now = this.now();
    const at = new Date(now).toISOString();
    const forgotten: LastCompactionRecord = {
      id: lastCompactionKey(sessionId),
      sessionId,
      force: false,
      dryRun: false,
      state: 'failed',
      createdAt: at,
      finishedAt: at,
      owner: OWNER,
      leaseExpiresAt: now,
      expiresAt: now + this.ttlMs,
      jobId: null,
    };
    await store.putIfNewer(forgotten);
  }

  /** Runs `write` after the session's writes already in flight, in call order. */
  private async inOrder(sessionId: string, write: () => Promise<void>): Promise<void> {
    const previous = this.writes.get(sessionId) ?? Promise.resolve();
    // A failed forget must not stop the writes queued after it.
    const current = previous.catch(() => undefined).then(write);
    this.writes.set(sessionId, current);
    try {
      await current;
    } finally {
      if (this.writes.get(sessionId) === current) this.writes.delete(sessionId);
    }
  }
}
