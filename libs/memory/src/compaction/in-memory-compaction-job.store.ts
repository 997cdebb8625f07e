import {
  heldByAnother,
  type CompactionJobStore,
  type StoredCompactionJob,
} from '../core/compaction-job-store.interface';
import { finishedAfter } from '../core/job-finish-order';

/**
 * The default {@link CompactionJobStore}: a map in this process, so only this process answers for
 * its jobs (one replica). Expired jobs are dropped as new ones are written.
 */
export class InMemoryCompactionJobStore implements CompactionJobStore {
  /** In write order; a job rewritten moves to the end. */
  private readonly jobs = new Map<string, StoredCompactionJob>();

  /** @param now the clock expiry is compared with (epoch ms); default `Date.now`. */
  constructor(private readonly now: () => number = Date.now) {}

  async put(job: StoredCompactionJob): Promise<void> {
    this.jobs.delete(job.id);
    this.jobs.set(job.id, structuredClone(job));
    const now = this.now();
    for (const [id, stored] of this.jobs) {
      // Oldest writes first; one job with a long life stops the sweep, the next write goes on.
      if (stored.expiresAt > now) break;
      this.jobs.delete(id);
    }
  }

  async putIfNewer(job: StoredCompactionJob): Promise<boolean> {
    const stored = this.jobs.get(job.id);
    if (stored && finishedAfter(stored, job)) return false;
    await this.put(job);
    return true;
  }

  async claim(job: StoredCompactionJob, now: number): Promise<boolean> {
    if (heldByAnother(this.jobs.get(job.id) ?? null, job, now)) return false;
    await this.put(job);
    return true;
  }

  async deleteForSessions(sessionIds: readonly string[]): Promise<number> {
    const gone = new Set(sessionIds);
    let deleted = 0;
    for (const [id, job] of this.jobs) {
      if (gone.has(job.sessionId) && this.jobs.delete(id)) deleted++;
    }
    return deleted;
  }

  async get(jobId: string): Promise<StoredCompactionJob | null> {
    const job = this.jobs.get(jobId);
    return job ? structuredClone(job) : null;
  }
}
