import { Logger } from '@nestjs/common';
import type { CompactionRunner } from '../compaction/compaction-job.interface';
import { CompactionScheduler } from '../compaction/compaction-scheduler';
import type { SharedCompactionJobs } from '../compaction/shared-compaction-jobs';
import type { ResolvedCompactionConfig } from './memory-options.validation';

/**
 * The module's {@link CompactionScheduler} (jobs, lanes, coalescing, history: see there), built by
 * the module from its runner, settings and shared job store, and shut down with the app (by the
 * module's teardown, before the backend closes). With `mode: 'inline'` the checks run in this process; with `mode: 'nats'`
 * they run on the compaction workers (`apps/worker`), and this service keeps the job states.
 */
export class CompactionService extends CompactionScheduler {
  constructor(
    runner: CompactionRunner,
    private readonly settings: ResolvedCompactionConfig,
    shared: SharedCompactionJobs,
  ) {
    super({ runner, shared, config: settings, logger: new Logger(CompactionService.name) });
  }

  /** Compaction starts once a session's context reaches this many tokens. */
  get thresholdTokens(): number {
    return this.settings.thresholdTokens;
  }

  /** Messages a compaction leaves unsummarised. */
  get keepRecent(): number {
    return this.settings.keepRecent;
  }

  /** `inline` or `nats`. */
  get mode(): 'inline' | 'nats' {
    return this.settings.mode;
  }
}
