import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { CompactionJob, CompactionJobStore } from '@agent-memory/memory';

/** What a stored record of a session's last compaction answers for (never runs again). */
const OWNER = 'last-compaction';

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
 * store (the in-process `simple` backend) it is kept in this process.
 */
export class LastCompactions {
  private readonly logger = new Logger('LastCompactions');
  private store: Promise<CompactionJobStore | undefined> = Promise.resolve(undefined);
  private ttlMs = 86_400_000;
  private readonly local = new Map<string, CompactionJob>();
  /**
   * Each session's writes in flight, chained: two jobs of a session that finish moments apart
   * would otherwise race to the store (two puts on other connections or files land in either
   * order), and the earlier job could end up recorded as the last.
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
      await store.put({
        ...job,
        id: lastCompactionKey(job.sessionId),
        owner: OWNER,
        leaseExpiresAt: now,
        expiresAt: now + this.ttlMs,
        // The real job's id stays readable: it is what `GET /api/compactions/:id` knows.
        jobId: job.id,
      } as Parameters<CompactionJobStore['put']>[0]);
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
    const stored = await store.get(lastCompactionKey(sessionId));
    if (!stored || stored.expiresAt <= this.now() || stored.sessionId !== sessionId) return null;
    const {
      owner: _owner,
      leaseExpiresAt: _lease,
      expiresAt: _expires,
      jobId,
      ...job
    } = stored as typeof stored & { jobId?: string };
    return { ...job, id: jobId ?? job.id };
  }

  /** Forgets a cleared or deleted session's record (an expired copy replaces the shared one). */
  async forget(sessionId: string): Promise<void> {
    await this.inOrder(sessionId, () => this.erase(sessionId));
  }

  private async erase(sessionId: string): Promise<void> {
    this.local.delete(sessionId);
    const store = await this.store;
    const now = this.now();
    await store?.put({
      id: lastCompactionKey(sessionId),
      sessionId,
      force: false,
      dryRun: false,
      state: 'failed',
      createdAt: new Date(now).toISOString(),
      owner: OWNER,
      leaseExpiresAt: now,
      expiresAt: now,
    });
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
