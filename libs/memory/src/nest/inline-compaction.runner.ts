import type { CompactionResult } from '../compaction/summary-compactor';
import type { MemoryBackend } from '../core/backend.interface';
import { SummaryCompactor } from '../compaction/summary-compactor';
import type { CompactionRequest, CompactionRunner } from './compaction-job.interface';
import type { ResolvedCompactionConfig } from './memory-options.validation';

/** Runs checks in this process with a `SummaryCompactor` over the module's backend. */
export class InlineCompactionRunner implements CompactionRunner {
  private readonly compactor: SummaryCompactor;

  constructor(
    private readonly backend: MemoryBackend,
    private readonly config: ResolvedCompactionConfig,
  ) {
    this.compactor = new SummaryCompactor(config.summarizer, { keepRecent: config.keepRecent });
  }

  async run(request: CompactionRequest, signal: AbortSignal): Promise<CompactionResult> {
    signal.throwIfAborted();
    const store = await this.backend.open(request.sessionId);
    return this.compactor.compact(store, {
      thresholdTokens: this.config.thresholdTokens,
      force: request.force,
      dryRun: request.dryRun,
      signal,
    });
  }
}
