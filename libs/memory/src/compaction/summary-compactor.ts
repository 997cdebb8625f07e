import { SnapshotConflictError } from '../core/errors';
import type { LlmClient } from '../core/llm-client.interface';
import type { CompactionResult } from '../core/compaction-job';
import type { Entry, Snapshot, SnapshotStore, StoredSnapshot } from '../core/memory.interface';
import type { Message } from '../core/message';
import { contextMessages } from '../core/snapshot';
import { coverCount } from './compaction-cut';
import { LlmSummarizer } from './llm.summarizer';
import type { Summarizer } from './summarizer.interface';
import { TokenCounter } from '../token-count/token-counter';
import { DEFAULT_COMPACTION_KEEP_RECENT } from '../core/defaults';

/** Options of {@link SummaryCompactor}. */
export interface SummaryCompactorOptions {
  /** Messages after the cut that stay as they are. Default {@link DEFAULT_COMPACTION_KEEP_RECENT}. */
  keepRecent?: number;
  /** Default: an o200k_base {@link TokenCounter}. */
  counter?: TokenCounter;
}

/** How one `SummaryCompactor.compact` call runs. */
export interface CompactOptions {
  /** Compact once the context reaches this many tokens. */
  thresholdTokens: number;
  /** Compact even below the threshold. */
  force?: boolean;
  /** Work out the cut and the summary, but save nothing. */
  dryRun?: boolean;
  signal?: AbortSignal;
}

/**
 * Compacts a session by tokens: summarises the messages after the previous snapshot up to a cut
 * that keeps the last `keepRecent`, updating the previous summary (covered messages are never
 * summarised again), pins the session's first user message (the task), and saves the result with
 * a compare-and-swap on the previous snapshot. A failed LLM call or a lost race changes nothing,
 * and a snapshot whose context would not be smaller than the current one is not saved.
 */
export class SummaryCompactor {
  readonly keepRecent: number;
  private readonly summarizer: Summarizer;
  private readonly counter: TokenCounter;

  constructor(llmOrSummarizer: LlmClient | Summarizer, opts: SummaryCompactorOptions = {}) {
    this.keepRecent = opts.keepRecent ?? DEFAULT_COMPACTION_KEEP_RECENT;
    if (!Number.isSafeInteger(this.keepRecent) || this.keepRecent < 0) {
      throw new RangeError(
        `keepRecent must be a whole number of at least 0, got ${opts.keepRecent}`,
      );
    }
    this.summarizer =
      'summarize' in llmOrSummarizer ? llmOrSummarizer : new LlmSummarizer(llmOrSummarizer);
    this.counter = opts.counter ?? new TokenCounter();
  }

  /**
   * @throws whatever the summariser threw (the store is then unchanged), and the store's errors.
   */
  async compact(store: SnapshotStore, opts: CompactOptions): Promise<CompactionResult> {
    if (!(opts.thresholdTokens > 0))
      throw new RangeError(`thresholdTokens must be above 0, got ${opts.thresholdTokens}`);
    const first = await this.attempt(store, opts);
    if (first !== 'conflict') return first;
    // Someone else saved a snapshot meanwhile: decide again once on what is stored now.
    const second = await this.attempt(store, opts);
    if (second !== 'conflict') return second;
    const { snapshot, tail } = await store.loadSnapshot({ signal: opts.signal });
    const tokens = await this.countContext(snapshot, tail, opts.signal);
    return { compacted: false, reason: 'conflict', tokensBefore: tokens, tokensAfter: tokens };
  }

  private async attempt(
    store: SnapshotStore,
    opts: CompactOptions,
  ): Promise<CompactionResult | 'conflict'> {
    const signal = opts.signal;
    // One read serves both the count and the cut: the context is the snapshot and its tail.
    const { snapshot: prev, tail } = await store.loadSnapshot({ signal });
    const tokensBefore = await this.countContext(prev, tail, signal);
    if (!opts.force && tokensBefore < opts.thresholdTokens) {
      return {
        compacted: false,
        reason: 'below-threshold',
        tokensBefore,
        tokensAfter: tokensBefore,
      };
    }
    const cover = coverCount(tail, this.keepRecent);
    if (cover === 0)
      return {
        compacted: false,
        reason: 'nothing-to-cover',
        tokensBefore,
        tokensAfter: tokensBefore,
      };

    const covered = tail.slice(0, cover).map((entry) => entry.message);
    const upTo = tail[cover - 1]!.cursor;
    const pinned = pinnedFor(prev, covered);
    const summary = await this.summarizer.summarize(
      {
        previous: prev?.summary ?? null,
        messages: covered,
        ...(pinned.length > 0 ? { pinned } : {}),
      },
      { signal },
    );
    const snapshot: Snapshot = pinned.length > 0 ? { summary, pinned } : { summary };
    const tokensAfter = await this.countContext(snapshot, tail.slice(cover), signal);
    // A snapshot that does not shrink what the model is sent only costs a write and a summary.
    if (tokensAfter >= tokensBefore)
      return { compacted: false, reason: 'no-gain', upTo, tokensBefore, tokensAfter, snapshot };
    if (opts.dryRun) return { compacted: false, upTo, tokensBefore, tokensAfter, snapshot };

    try {
      const stored = await store.saveSnapshot(snapshot, upTo, prev, { signal });
      return { compacted: true, upTo, tokensBefore, tokensAfter, snapshot: stored };
    } catch (error) {
      if (error instanceof SnapshotConflictError) return 'conflict';
      throw error;
    }
  }

  /** Tokens of what `retrieve` returns for `snapshot` followed by `tail`, yielding to the event loop. */
  private countContext(
    snapshot: Snapshot | null,
    tail: readonly Entry[],
    signal: AbortSignal | undefined,
  ): Promise<number> {
    return this.counter.countAsync(
      contextMessages(
        snapshot,
        tail.map((entry) => entry.message),
      ),
      { signal },
    );
  }
}

/** The task stays pinned: the previous snapshot's pins, else the first user message now covered. */
function pinnedFor(prev: StoredSnapshot | null, covered: readonly Message[]): Message[] {
  if (prev?.pinned?.length) return prev.pinned;
  const task = covered.find((message) => message.role === 'user');
  return task ? [task] : [];
}
