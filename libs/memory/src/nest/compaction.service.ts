import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { CompactionRunner } from '../compaction/compaction-job.interface';
import { CompactionScheduler } from '../compaction/compaction-scheduler';
import type { SharedCompactionJobs } from '../compaction/shared-compaction-jobs';
import { COMPACTION_JOBS, COMPACTION_RUNNER, MEMORY_COMPACTION_CONFIG } from './memory.constants';
import type { ResolvedCompactionConfig } from './memory-options.validation';

/**
 * The module's {@link CompactionScheduler} (jobs, lanes, coalescing, history: see there), built by
 * Nest from the module's runner, settings and shared job store, and shut down with the app
 * (`onModuleDestroy`). With `mode: 'inline'` the checks run in this process; with `mode: 'nats'`
 * they run on the compaction workers (`apps/worker`), and this service keeps the job states.
 */
@Injectable()
export class CompactionService extends CompactionScheduler implements OnModuleDestroy {
  constructor(
    @Inject(COMPACTION_RUNNER) runner: CompactionRunner,
    @Inject(MEMORY_COMPACTION_CONFIG) private readonly settings: ResolvedCompactionConfig,
    @Inject(COMPACTION_JOBS) shared: SharedCompactionJobs,
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

  /** Nest lifecycle: {@link shutdown}. */
  async onModuleDestroy(): Promise<void> {
    await this.shutdown();
  }
}
