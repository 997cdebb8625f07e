import type { MemoryBackend } from '../core/backend.interface';
import type { LlmClient } from '../core/llm-client.interface';
import type { CompactionRequest, CompactionRunner } from './compaction-job.interface';
import type { Summarizer } from './summarizer.interface';
import type { CompactionResult } from '../core/compaction-job';
import { SummaryCompactor } from './summary-compactor';

/** What an {@link InlineCompactionRunner} compacts with (the module's `compaction`, after defaults). */
export interface InlineCompactionSettings {
  /** What `SummaryCompactor` summarises with. */
  summarizer: LlmClient | Summarizer;
  /** Messages a compaction leaves unsummarised. */
  keepRecent: number;
  /** Compaction starts once a session's context reaches this many tokens. */
  thresholdTokens: number;
}

/** Runs checks in this process with a `SummaryCompactor` over the module's backend. */
export class InlineCompactionRunner implements CompactionRunner {
  private readonly compactor: SummaryCompactor;

  constructor(
    private readonly backend: MemoryBackend,
    private readonly config: InlineCompactionSettings,
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
