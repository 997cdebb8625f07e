import type { CompactionResult } from '../compaction/summary-compactor';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { assertSessionId } from '../core/session-id';
import type {
  CompactionJob,
  CompactionJobRef,
  CompactionRunOptions,
  CompactionRunner,
} from './compaction-job.interface';
import { describeCompactionError } from './compaction-worker.protocol';
import { COMPACTION_JOBS, COMPACTION_RUNNER, MEMORY_COMPACTION_CONFIG } from './memory.constants';
import type { ResolvedCompactionConfig } from './memory-options.validation';
import { SharedCompactionJobs } from './shared-compaction-jobs';

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
 * Compacts sessions off the request path (SPEC §5). Every check is a job with an id and a state
 * (`queued` → `running` → `done` | `failed`); a session runs one job at a time, in order, and a new
 * request that matches a job still `queued` for that session joins it instead of adding another
 * (so a burst of `afterTurn` calls while a check runs adds at most one more run). At most
 * `maxConcurrent` jobs run at once across sessions. Finished jobs are kept for `job()` up to
 * `historyLimit`, oldest forgotten first.
 *
 * With `mode: 'inline'` the checks run here; with `mode: 'nats'` they run on the compaction
 * workers (`apps/worker`), and this service keeps the job states.
 *
 * Jobs asked for with `enqueue`, `submit` or `compact` are also written, at each change, to the
 * shared job store ({@link SharedCompactionJobs}, the module's `compaction.jobs`), so that
 * {@link lookup} on any replica answers for them; `afterTurn` checks stay in this process.
 *
 * Shutdown (`onModuleDestroy`, or `shutdown()`): new requests are refused, queued jobs fail as
 * cancelled, running ones get `shutdownGraceMs` to finish and are then aborted.
 */
@Injectable()
export class CompactionService implements OnModuleDestroy {
  private readonly logger = new Logger(CompactionService.name);
  private readonly jobs = new Map<string, JobRecord>();
  /** Ids of finished jobs, oldest first, for the bounded history. */
  private readonly finished = new Set<string>();
  private readonly lanes = new Map<string, Lane>();
  private readonly ready: Lane[] = [];
  private readonly running = new Set<Running>();
  private pumpScheduled = false;
  private stopping: Promise<void> | null = null;

  constructor(
    @Inject(COMPACTION_RUNNER) private readonly runner: CompactionRunner,
    @Inject(MEMORY_COMPACTION_CONFIG) private readonly config: ResolvedCompactionConfig,
    @Inject(COMPACTION_JOBS) private readonly shared: SharedCompactionJobs,
  ) {}

  /** Compaction starts once a session's context reaches this many tokens. */
  get thresholdTokens(): number {
    return this.config.thresholdTokens;
  }

  /** Messages a compaction leaves unsummarised. */
  get keepRecent(): number {
    return this.config.keepRecent;
  }

  /** `inline` or `nats`. */
  get mode(): 'inline' | 'nats' {
    return this.config.mode;
  }

  /** True once shutdown has begun: no new jobs are taken. */
  get isShuttingDown(): boolean {
    return this.stopping !== null;
  }

  /**
   * Schedules a threshold check of the session after a turn and returns at once. A failure is
   * logged (and kept in the job), never thrown.
   * @returns the job, or null during shutdown (nothing was scheduled).
   * @throws InvalidSessionIdError for an invalid id.
   */
  afterTurn(sessionId: string): CompactionJobRef | null {
    if (this.stopping) return null;
    return this.add(sessionId, {}, true);
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

  /** The job of this process, or null when the id is unknown (or so old it was forgotten). A copy. */
  job(jobId: string): CompactionJob | null {
    const record = this.jobs.get(jobId);
    return record ? { ...record.job } : null;
  }

  /** Resolves when the job finishes (with its result), or rejects with its error; null when unknown. */
  wait(jobId: string): Promise<CompactionResult> | null {
    return this.jobs.get(jobId)?.done ?? null;
  }

  /** Stops taking jobs and drains (see the class doc). Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= this.drain();
    return this.stopping;
  }

  /** Nest lifecycle: {@link shutdown}. */
  async onModuleDestroy(): Promise<void> {
    await this.shutdown();
  }

  private assertAccepting(): void {
    if (this.stopping)
      throw new Error('CompactionService is shutting down and takes no new compaction jobs');
  }

  private add(
    sessionId: string,
    opts: CompactionRunOptions,
    background: boolean,
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
      same.background &&= background;
      if (!background && !same.shared) this.share(same);
      return { jobId: same.job.id };
    }
    const record = this.createRecord(sessionId, force, dryRun, background);
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
        id: randomUUID(),
        sessionId,
        force,
        dryRun,
        state: 'queued',
        createdAt: new Date().toISOString(),
      },
      done,
      background,
      shared: false,
      stored: Promise.resolve(),
      settle: (result, error) => {
        record.job.finishedAt = new Date().toISOString();
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
    record.job.startedAt = new Date().toISOString();
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
      record.settle(await this.runner.run({ sessionId, force, dryRun }, signal));
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
          new Error('compaction cancelled: the service shut down before the job ran'),
        );
      }
    }
    this.ready.length = 0;
    const all = () => Promise.all([...this.running].map((entry) => entry.finished));
    if (this.running.size === 0) return this.shared.close();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace-over'>((resolve) => {
      timer = setTimeout(() => resolve('grace-over'), this.config.shutdownGraceMs);
      timer.unref();
    });
    const outcome = await Promise.race([all(), graceOver]);
    clearTimeout(timer);
    if (outcome === 'grace-over') {
      for (const entry of this.running) {
        entry.controller.abort(new Error('compaction aborted: the service shut down'));
      }
      await all();
    }
    await this.shared.close();
  }
}
