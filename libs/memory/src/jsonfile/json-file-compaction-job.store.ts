import { mkdir, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  heldByAnother,
  type CompactionJobStore,
  type StoredCompactionJob,
} from '../core/compaction-job-store.interface';
import { finishedAfter } from '../core/job-finish-order';
import { writeFileAtomic } from './atomic-write';
import { withFileLock } from './file-lock';

/** How often, at most, a write also deletes the expired job files (ms). */
const EXPIRED_SWEEP_INTERVAL_MS = 60_000;

/** The jobs folder inside a JSON-file store's folder (a dot folder: never listed as a session). */
export const JSON_FILE_JOBS_FOLDER = '.compaction-jobs';

/** Options of {@link JsonFileCompactionJobStore}. */
export interface JsonFileCompactionJobStoreOptions {
  /** The folder of the job files, such as `join(MEMORY_DIR, JSON_FILE_JOBS_FOLDER)`; created when missing. */
  dir: string;
  /** A job file not rewritten for this long is deleted (ms). */
  ttlMs: number;
  /** The clock of the sweeps (epoch ms). Default `Date.now`. */
  now?: () => number;
}

/**
 * Compaction job states as one JSON file per job (`<jobId>.json`, replaced atomically at each
 * change), for processes that share the JSON-file store's folder. A write deletes the files older
 * than `ttlMs` at most once a minute.
 */
export class JsonFileCompactionJobStore implements CompactionJobStore {
  private readonly now: () => number;
  private nextSweepAt = 0;
  private ready: Promise<unknown> | null = null;

  constructor(private readonly options: JsonFileCompactionJobStoreOptions) {
    this.now = options.now ?? Date.now;
  }

  async put(job: StoredCompactionJob): Promise<void> {
    await this.folder();
    await writeFileAtomic(this.path(job.id), JSON.stringify(job));
    await this.sweepIfDue();
  }

  /** Reads, compares and replaces the job's file under its cross-process lock (`<file>.lock`). */
  async putIfNewer(job: StoredCompactionJob): Promise<boolean> {
    await this.folder();
    const stored = await withFileLock(job.sessionId, this.path(job.id), async () => {
      const current = await this.get(job.id);
      if (current && finishedAfter(current, job)) return false;
      await writeFileAtomic(this.path(job.id), JSON.stringify(job));
      return true;
    });
    await this.sweepIfDue();
    return stored;
  }

  /** Reads, checks and replaces the job's file under its cross-process lock (`<file>.lock`). */
  async claim(job: StoredCompactionJob, now: number): Promise<boolean> {
    await this.folder();
    return withFileLock(job.sessionId, this.path(job.id), async () => {
      if (heldByAnother(await this.get(job.id), job, now)) return false;
      await writeFileAtomic(this.path(job.id), JSON.stringify(job));
      return true;
    });
  }

  async get(jobId: string): Promise<StoredCompactionJob | null> {
    try {
      return JSON.parse(await readFile(this.path(jobId), 'utf8')) as StoredCompactionJob;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Reads every job file (there is no index by session) and deletes those of `sessionIds`. */
  async deleteForSessions(sessionIds: readonly string[]): Promise<number> {
    if (sessionIds.length === 0) return 0;
    const gone = new Set(sessionIds);
    const names = await readdir(this.options.dir).catch(() => [] as string[]);
    let deleted = 0;
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const job = await this.get(name.slice(0, -'.json'.length)).catch(() => null);
      if (!job || !gone.has(job.sessionId)) continue;
      await unlink(this.path(job.id)).catch(() => undefined);
      deleted++;
    }
    return deleted;
  }

  private folder(): Promise<unknown> {
    this.ready ??= mkdir(this.options.dir, { recursive: true });
    return this.ready;
  }

  /** Deletes the expired job files, at most once every {@link EXPIRED_SWEEP_INTERVAL_MS}. */
  private async sweepIfDue(): Promise<void> {
    const now = this.now();
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + EXPIRED_SWEEP_INTERVAL_MS;
    await this.sweep(now);
  }

  private path(jobId: string): string {
    return join(this.options.dir, `${jobId}.json`);
  }

  private async sweep(now: number): Promise<void> {
    for (const name of await readdir(this.options.dir)) {
      if (!name.endsWith('.json')) continue;
      const path = join(this.options.dir, name);
      const info = await stat(path).catch(() => null);
      if (info && info.mtimeMs + this.options.ttlMs < now)
        await unlink(path).catch(() => undefined);
    }
  }
}
