import type { MemoryBackend } from '../core/backend.interface';
import type { LlmClient } from '../core/llm-client.interface';
import type {
  CompactionRequest,
  CompactionRunner,
  CompactionTurnHint,
} from './compaction-job.interface';
import type { Summarizer } from './summarizer.interface';
import type { CompactionResult } from '../core/compaction-job';
import { SummaryCompactor } from './summary-compactor';
import { SessionTokenTally } from './session-token-tally';
import { TokenCounter } from '../token-count/token-counter';

/** What an {@link InlineCompactionRunner} compacts with (the module's `compaction`, after defaults). */
export interface InlineCompactionSettings {
  /** What `SummaryCompactor` summarises with. */
  summarizer: LlmClient | Summarizer;
  /** Messages a compaction leaves unsummarised. */
  keepRecent: number;
  /** Compaction starts once a session's context reaches this many tokens. */
  thresholdTokens: number;
}

/**
 * Runs checks in this process with a `SummaryCompactor` over the module's backend. A threshold
 * check after turns that says which messages they saved is answered without reading the session
 * when the session's last count plus those messages' tokens stays under the threshold (see
 * {@link SessionTokenTally}); otherwise, and at least every few checks, it reads and counts.
 */
export class InlineCompactionRunner implements CompactionRunner {
  private readonly compactor: SummaryCompactor;
  private readonly counter = new TokenCounter();
  private readonly tally = new SessionTokenTally();

  constructor(
    private readonly backend: MemoryBackend,
    private readonly config: InlineCompactionSettings,
  ) {
    this.compactor = new SummaryCompactor(config.summarizer, {
      keepRecent: config.keepRecent,
      counter: this.counter,
    });
  }

  async run(
    request: CompactionRequest,
    signal: AbortSignal,
    hint?: CompactionTurnHint,
  ): Promise<CompactionResult> {
    signal.throwIfAborted();
    const { sessionId } = request;
    if (hint && !request.force && !request.dryRun) {
      const estimate = this.tally.estimate(
        sessionId,
        await this.counter.countAsync(hint.added, { signal }),
      );
      if (estimate !== null && estimate < this.config.thresholdTokens) {
        this.tally.answered(sessionId, estimate);
        return {
          compacted: false,
          reason: 'below-threshold',
          tokensBefore: estimate,
          tokensAfter: estimate,
        };
      }
    }
    try {
      const store = await this.backend.open(sessionId);
      const result = await this.compactor.compact(store, {
        thresholdTokens: this.config.thresholdTokens,
        force: request.force,
        dryRun: request.dryRun,
        signal,
      });
      this.tally.counted(sessionId, result.compacted ? result.tokensAfter : result.tokensBefore);
      return result;
    } catch (error) {
      this.tally.forget(sessionId);
      throw error;
    }
  }
}
