import { randomUUID } from 'node:crypto';
import { CompactionShutdownError } from '../core/errors';
import { assertSessionId } from '../core/session-id';
import { settleWithin } from '../core/timeout';
import type { CompactionJob, CompactionResult } from '../core/compaction-job';
import type { Message } from '../core/message';
import {
  consoleCompactionLogger,
  type CompactionJobRef,
  type CompactionLogger,
  type CompactionRunOptions,
  type CompactionRunner,
} from './compaction-job.interface';
import { describeCompactionError } from './compaction-job-error';
import type { SharedCompactionJobs } from './shared-compaction-jobs';

/** The scheduling limits of a {@link CompactionScheduler} (the module's `compaction` settings). */
export interface CompactionSchedulingConfig {
  /** Jobs that run at once across sessions. */
  maxConcurrent: number;
  /** Finished jobs kept for `job()`, oldest forgotten first. */
  historyLimit: number;
  /** On shutdown, how long running jobs may finish before they are aborted (ms). */
  shutdownGraceMs: number;
}

/** The unfinished jobs of one {@link CompactionScheduler}, for metrics. */
export interface CompactionBacklog {
  /** Jobs waiting for a slot (or for their session's running job). */
  queued: number;
  /** Jobs running now (in this process, or sent to a worker). */
  running: number;
  /** Creation time of the oldest queued or running job; null when there is none. */
  oldestCreatedAt: Date | null;
}

/** What a {@link CompactionScheduler} is made of. */
export interface CompactionSchedulerOptions {
  /** Executes one check (in this process, or on a worker). */
  runner: CompactionRunner;
  /** Where the states of shared jobs go, for every replica. */
  shared: SharedCompactionJobs;
  config: CompactionSchedulingConfig;
  /** The clock of the jobs' times. Default: the system clock. */
  now?: () => Date;
  /** Makes job ids. Default `randomUUID`. */
  newId?: () => string;
  /** Where failures nobody awaits are reported. Default: `console.warn`. */
  logger?: CompactionLogger;
}

interface JobRecord {
  job: CompactionJob;
  /** Settles when the job finishes; rejections are observed (see `track`). */
  done: Promise<CompactionResult>;
  settle(result: CompactionResult | null, error?: unknown): void;
  /** Logged when it fails and nobody awaits it (afterTurn checks). */
  background: boolean;
  /** Asked for by a caller (`enqueue`, `compact`): its states go to the shared job store. */
  shared: boolean;
  /** The last write of the job to the shared job store. */
  stored: Promise<void>;
  /**
   * The messages saved by the turns this threshold check follows, when every caller that joined
   * it said (`afterTurn` with messages); null for a check that must read the session.
   */
  added: Message[] | null;
}

interface Lane {
  sessionId: string;
  running: JobRecord | null;
  queue: JobRecord[];
  ready: boolean;
}

interface Running {
  record: JobRecord;
  controller: AbortController;
  finished: Promise<void>;
}

/**
 * Compacts sessions off the request path (docs/architecture.md#compaction). Every check is a job
 * with an id and a state (`queued` → `running` → `done` | `failed`); a session runs one job at a
 * time, in order, and a new request that matches a job still `queued` for that session joins it
 * instead of adding another (so a burst of `afterTurn` calls while a check runs adds at most one
 * more run). At most `maxConcurrent` jobs run at once across sessions. Finished jobs are kept for
 * `job()` up to `historyLimit`, oldest forgotten first.
 *
 * The runner decides where a check runs: here (`InlineCompactionRunner`) or on the compaction
 * workers (`NatsCompactionRunner`, `apps/worker`); the scheduler keeps the job states either way.
 * Plain code, with its clock and ids injected: Nest's `CompactionService` is this with DI.
 *
 * Jobs asked for with `enqueue`, `submit` or `compact` are also written, at each change, to the
 * shared job store ({@link SharedCompactionJobs}, the module's `compaction.jobs`), so that
 * {@link lookup} on any replica answers for them; `afterTurn` checks stay in this process.
 *
 * Shutdown (`shutdown()`): new requests are refused, queued jobs fail as
 * cancelled, running ones get `shutdownGraceMs` to finish and are then aborted.
 */
export class CompactionScheduler {
  private readonly jobs = new Map<string, JobRecord>();
  /** Ids of finished jobs, oldest first, for the bounded history. */
  private readonly finished = new Set<string>();
  private readonly lanes = new Map<string, Lane>();
  private readonly ready: Lane[] = [];
  private readonly running = new Set<Running>();
  private pumpScheduled = false;
  private stopping: Promise<void> | null = null;

  private readonly runner: CompactionRunner;
  private readonly shared: SharedCompactionJobs;
  private readonly config: CompactionSchedulingConfig;
  private readonly now: () => Date;
  private readonly newId: () => string;
  private readonly logger: CompactionLogger;

  constructor(options: CompactionSchedulerOptions) {
    this.runner = options.runner;
    this.shared = options.shared;
    this.config = options.config;
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? randomUUID;
    this.logger = options.logger ?? consoleCompactionLogger;
  }

  /** True once shutdown has begun: no new jobs are taken. */
  get isShuttingDown(): boolean {
    return this.stopping !== null;
  }

  /**
   * Schedules a threshold check of the session after a turn and returns at once. A failure is
   * logged (and kept in the job), never thrown.
   * @param saved the messages the turn saved: with them, an in-process check may add their tokens
   * to the session's last count instead of reading and counting the whole session (see
   * `InlineCompactionRunner`); without them, the check reads the session.
   * @returns the job, or null during shutdown (nothing was scheduled).
   * @throws InvalidSessionIdError for an invalid id.
   */
  afterTurn(sessionId: string, saved?: readonly Message[]): CompactionJobRef | null {
    if (this.stopping) return null;
    return this.add(sessionId, {}, true, saved ? [...saved] : null);
  }

  /**
   * Schedules a check (`force` compacts below the threshold too; `dryRun` saves nothing) and
   * returns its job id at once; follow it with {@link job}.
   * @throws InvalidSessionIdError for an invalid id; Error during shutdown.
   */
  enqueue(sessionId: string, opts: CompactionRunOptions = {}): CompactionJobRef {
    this.assertAccepting();
    return this.add(sessionId, opts, false);
  }

  /**
   * Runs a check (after the session's jobs ahead of it) and resolves with its result.
   * @throws the compactor's error (the session is unchanged), InvalidSessionIdError, or an Error
   * when the service shuts down before the check ran or while it ran.
   */
  compact(sessionId: string, opts: CompactionRunOptions = {}): Promise<CompactionResult> {
    this.assertAccepting();
    const { jobId } = this.add(sessionId, opts, false);
    return this.jobs.get(jobId)!.done;
  }

  /**
   * Like {@link enqueue}, and resolves once the job is in the shared job store, so that any
   * replica's {@link lookup} finds it from then on.
   * @throws what `enqueue` throws; the job store's error when it cannot be written (the job runs
   * anyway, and this process answers for it).
   */
  async submit(sessionId: string, opts: CompactionRunOptions = {}): Promise<CompactionJobRef> {
    const ref = this.enqueue(sessionId, opts);
    await this.jobs.get(ref.jobId)?.stored;
    return ref;
  }

  /**
   * The job from this process, else from the shared job store (a job of another replica); null
   * when unknown or expired. A job whose replica stopped renewing it is reported `failed`
   * (`JOB_OWNER_LOST`) once its lease is over.
   * @throws the job store's error when it cannot be read.
   */
  async lookup(jobId: string): Promise<CompactionJob | null> {
    return this.job(jobId) ?? (await this.shared.lookup(jobId));
  }

  /**
   * Forgets the finished jobs of these sessions in this process and deletes all their jobs from
   * the shared job store (after erasing a resource: a finished job holds the summary it wrote).
   * A job still queued or running finishes, and is recorded, as usual: its sessions are gone, so
   * it stores no summary.
   * @returns how many jobs the shared job store deleted.
   * @throws the job store's error when it cannot be written.
   */
  async forgetSessions(sessionIds: readonly string[]): Promise<number> {
    if (sessionIds.length === 0) return 0;
    const gone = new Set(sessionIds);
    for (const id of this.finished) {
      const record = this.jobs.get(id);
      if (!record || !gone.has(record.job.sessionId)) continue;
      this.finished.delete(id);
      this.jobs.delete(id);
    }
    return this.shared.store.deleteForSessions(sessionIds);
  }

  /** The job of this process, or null when the id is unknown (or so old it was forgotten). A copy. */
  job(jobId: string): CompactionJob | null {
    const record = this.jobs.get(jobId);
    return record ? { ...record.job } : null;
  }

  /** Resolves when the job finishes (with its result), or rejects with its error; null when unknown. */
  wait(jobId: string): Promise<CompactionResult> | null {
    return this.jobs.get(jobId)?.done ?? null;
  }

  /** How many jobs of this process wait and run now, and since when the oldest exists. */
  backlog(): CompactionBacklog {
    let queued = 0;
    let oldest: string | null = null;
    const seen = (job: CompactionJob) => {
      if (oldest === null || job.createdAt < oldest) oldest = job.createdAt;
    };
    for (const lane of this.lanes.values()) {
      queued += lane.queue.length;
      lane.queue.forEach((record) => seen(record.job));
    }
    for (const entry of this.running) seen(entry.record.job);
    return {
      queued,
      running: this.running.size,
      oldestCreatedAt: oldest === null ? null : new Date(oldest),
    };
  }

  /** Stops taking jobs and drains (see the class doc). Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= this.drain();
    return this.stopping;
  }

  private assertAccepting(): void {
    if (this.stopping)
      throw new CompactionShutdownError(
        'CompactionService is shutting down and takes no new compaction jobs',
      );
  }

  private add(
    sessionId: string,
    opts: CompactionRunOptions,
    background: boolean,
    added: Message[] | null = null,
  ): CompactionJobRef {
    assertSessionId(sessionId);
    const force = opts.force === true;
    const dryRun = opts.dryRun === true;
    let lane = this.lanes.get(sessionId);
    if (!lane) {
      lane = { sessionId, running: null, queue: [], ready: false };
      this.lanes.set(sessionId, lane);
    }
    const same = lane.queue.find(
      (queued) => queued.job.force === force && queued.job.dryRun === dryRun,
    );
    if (same) {
      // The joined check covers every turn's messages, or reads the session if one did not say.
      same.added = same.added && added ? same.added.concat(added) : null;
      same.background &&= background;
      if (!background && !same.shared) this.share(same);
      return { jobId: same.job.id };
    }
    const record = this.createRecord(sessionId, force, dryRun, background);
    record.added = added;
    if (!background) this.share(record);
    lane.queue.push(record);
    this.markReady(lane);
    return { jobId: record.job.id };
  }

  private createRecord(
    sessionId: string,
    force: boolean,
    dryRun: boolean,
    background: boolean,
  ): JobRecord {
    let resolve!: (result: CompactionResult) => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<CompactionResult>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    done.catch(() => undefined);
    const record: JobRecord = {
      job: {
        id: this.newId(),
        sessionId,
        force,
        dryRun,
        state: 'queued',
        createdAt: this.now().toISOString(),
      },
      done,
      background,
      shared: false,
      stored: Promise.resolve(),
      added: null,
      settle: (result, error) => {
        record.job.finishedAt = this.now().toISOString();
        if (result) {
          record.job.state = 'done';
          record.job.result = result;
          resolve(result);
        } else {
          record.job.state = 'failed';
          record.job.error = describeCompactionError(error);
          reject(error);
        }
        this.writeShared(record);
        this.shared.finished(record.job);
        this.remember(record);
      },
    };
    this.jobs.set(record.job.id, record);
    return record;
  }

  /** From now on, the job's states go to the shared job store. */
  private share(record: JobRecord): void {
    record.shared = true;
    this.writeShared(record);
  }

  private writeShared(record: JobRecord): void {
    if (!record.shared) return;
    record.stored = this.shared.record(record.job);
    record.stored.catch((error: unknown) =>
      this.logger.warn(
        `could not store compaction job ${record.job.id} (${record.job.state}): ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }

  private remember(record: JobRecord): void {
    this.finished.add(record.job.id);
    for (const id of this.finished) {
      if (this.finished.size <= this.config.historyLimit) break;
      this.finished.delete(id);
      this.jobs.delete(id);
    }
  }

  private markReady(lane: Lane): void {
    if (lane.running || lane.ready || lane.queue.length === 0) return;
    lane.ready = true;
    this.ready.push(lane);
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    // Off the caller's stack: afterTurn returns before any compaction work (token counting is CPU).
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (
      !this.stopping &&
      this.running.size < this.config.maxConcurrent &&
      this.ready.length > 0
    ) {
      const lane = this.ready.shift()!;
      lane.ready = false;
      const record = lane.queue.shift();
      if (record) this.start(lane, record);
    }
  }

  private start(lane: Lane, record: JobRecord): void {
    const controller = new AbortController();
    lane.running = record;
    record.job.state = 'running';
    record.job.startedAt = this.now().toISOString();
    this.writeShared(record);
    const entry: Running = { record, controller, finished: Promise.resolve() };
    entry.finished = this.execute(record, controller.signal).finally(() => {
      this.running.delete(entry);
      lane.running = null;
      if (lane.queue.length > 0) this.markReady(lane);
      else this.lanes.delete(lane.sessionId);
      this.pump();
    });
    this.running.add(entry);
  }

  private async execute(record: JobRecord, signal: AbortSignal): Promise<void> {
    const { sessionId, force, dryRun } = record.job;
    try {
      const { added } = record;
      record.added = null;
      record.settle(
        await this.runner.run({ sessionId, force, dryRun }, signal, added ? { added } : undefined),
      );
    } catch (error) {
      record.settle(null, error);
      if (record.background) {
        this.logger.warn(
          `compaction of session "${sessionId}" failed (job ${record.job.id}): ${record.job.error?.message}`,
        );
      }
    }
  }

  private async drain(): Promise<void> {
    for (const lane of this.lanes.values()) {
      for (const record of lane.queue.splice(0)) {
        record.settle(
          null,
          new CompactionShutdownError(
            'compaction cancelled: the service shut down before the job ran',
          ),
        );
      }
    }
    this.ready.length = 0;
    const all = () => Promise.all([...this.running].map((entry) => entry.finished));
    if (this.running.size === 0) return this.shared.close();
    const outcome = await settleWithin(all(), this.config.shutdownGraceMs);
    if (!outcome.done) {
      for (const entry of this.running) {
        entry.controller.abort(
          new CompactionShutdownError('compaction aborted: the service shut down'),
        );
      }
      await all();
    }
    await this.shared.close();
  }
}
