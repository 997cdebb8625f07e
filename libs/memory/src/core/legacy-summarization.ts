import { InvalidCursorError, SnapshotConflictError } from './errors';
import type {
  CallOptions,
  Entry,
  SaveResult,
  Snapshot,
  SnapshotState,
  StoredSnapshot,
} from './memory.interface';
import type { LlmClient } from './llm-client.interface';
import { systemMessage, textContent, type Message } from './message';
import { SUMMARY_PREFIX, contextMessages } from './snapshot';
import type { SnapshotWrite } from './snapshot-write';
import { dropOrphanedToolResults } from './tool-pairing';

/**
 * @deprecated Use compaction (`SummaryCompactor`), which counts tokens, runs off the request path
 * and keeps the log. This option summarises inside `save`, counting messages.
 */
export interface SummarizationOptions {
  llm: LlmClient;
  /** Summarise once this many messages are kept. At least 2. */
  threshold: number;
  /** How many of the oldest messages to replace; `>= threshold` is lowered to `threshold - 1`, 0 means `threshold / 2`. */
  size: number;
  /** Told when a summarisation fails; the saved messages stay stored and the next save tries again. */
  onError?: (error: unknown) => void;
}

const LEGACY_INSTRUCTIONS =
  'Summarise the conversation below for your own later use. Keep the facts, decisions, user ' +
  'preferences and open questions; drop small talk. Answer with the summary only.';

/**
 * What a store lends {@link LegacySummaryPolicy} after a save: its kept view and its own
 * snapshot write (the one behind `saveSnapshot`, without the refusal).
 */
export interface SummaryTarget {
  loadSnapshot(opts?: CallOptions): Promise<SnapshotState>;
  /** @returns the stored snapshot, or null when `covers` no longer matched and nothing was written. */
  writeSnapshot(write: SnapshotWrite, opts?: CallOptions): Promise<StoredSnapshot | null>;
}

/** What one summarisation replaces, planned on the kept view before the LLM is asked. */
export interface LegacySummaryPlan {
  /** The snapshot read when planning: the compare-and-swap's `prev`. */
  prev: StoredSnapshot | null;
  /** The oldest messages of the view, the previous summary first when it is among them. */
  messages: Message[];
  /** The stored entries among them; the last one's cursor is the new snapshot's `upTo`. */
  covers: Entry[];
}

/**
 * The deprecated `summarization` option as a compaction policy, handed to a store by its backend
 * (or built by the store from its own `summarization` option) and run by the store's `save`.
 *
 * The session's kept view is what `retrieve` shows: the snapshot's summary as one **system**
 * message (`SUMMARY_PREFIX` + summary), then the stored messages after the snapshot. After a save
 * that stored messages, once the view holds `threshold` messages, the oldest `size` of it are
 * summarised by the LLM (no lock held meanwhile) and stored as a snapshot through the store's own
 * snapshot write: a compare-and-swap on the snapshot read when planning, pruning the covered
 * messages in the same step, written only if those messages are still the stored ones. A lost
 * race writes nothing and is not an error (the next save plans again), so messages written
 * meanwhile are never lost; any other failure goes to `onError` and the save still succeeds.
 */
export class LegacySummaryPolicy {
  readonly threshold: number;
  readonly size: number;

  /** @throws RangeError when `threshold` is below 2 or not a whole number. */
  constructor(private readonly options: SummarizationOptions) {
    if (!Number.isSafeInteger(options.threshold) || options.threshold < 2) {
      throw new RangeError(
        `summarization.threshold must be a whole number of at least 2, got ${options.threshold}`,
      );
    }
    this.threshold = options.threshold;
    const size = options.size >= options.threshold ? options.threshold - 1 : options.size;
    this.size = size > 0 ? size : Math.max(1, Math.floor(options.threshold / 2));
  }

  /** What `retrieve` returns: the summary as a system message, then `messages` (orphans dropped). */
  context(snapshot: Snapshot | null, messages: readonly Message[]): Message[] {
    return dropOrphanedToolResults(
      snapshot ? [...summaryMessagesOf(snapshot), ...messages] : [...messages],
    );
  }

  /**
   * The oldest `size` messages of the kept view, or null while it holds fewer than `threshold`.
   * At least one stored message is covered: the previous summary alone is not summarised again.
   */
  plan(state: SnapshotState): LegacySummaryPlan | null {
    const summary = state.snapshot ? summaryMessagesOf(state.snapshot) : [];
    if (summary.length + state.tail.length < this.threshold) return null;
    const covers = state.tail.slice(0, Math.max(1, this.size - summary.length));
    return {
      prev: state.snapshot,
      messages: [...summary, ...covers.map((entry) => entry.message)],
      covers,
    };
  }

  /** Runs after a store's save (see the class comment); never throws. */
  async afterSave(result: SaveResult, store: SummaryTarget, opts?: CallOptions): Promise<void> {
    if (result.replayed || result.last === null) return;
    try {
      const plan = this.plan(await store.loadSnapshot(opts));
      if (!plan) return;
      const summary = await this.summarize(plan.messages, opts);
      await store.writeSnapshot(
        {
          snapshot: { summary },
          upTo: plan.covers[plan.covers.length - 1]!.cursor,
          prev: plan.prev,
          prune: true,
          covers: plan.covers,
        },
        opts,
      );
    } catch (error) {
      // Another writer moved the snapshot or cleared the session meanwhile: nothing was written.
      if (error instanceof SnapshotConflictError || error instanceof InvalidCursorError) return;
      this.options.onError?.(error);
    }
  }

  /** The summary text of `messages`, as the LLM answered. Throws what the LLM threw. */
  async summarize(messages: readonly Message[], opts?: CallOptions): Promise<string> {
    const transcript = messages
      .map((message) => `${message.role}: ${textContent(message)}`)
      .join('\n');
    const { message } = await this.options.llm.complete(
      [
        systemMessage(LEGACY_INSTRUCTIONS),
        { role: 'user', parts: [{ type: 'text', text: transcript }] },
      ],
      opts,
    );
    return textContent(message);
  }
}

/** The context a store with or without the policy draws: `policy.context`, else `contextMessages`. */
export function storeContext(
  policy: LegacySummaryPolicy | undefined,
  snapshot: Snapshot | null,
  messages: readonly Message[],
): Message[] {
  return policy ? policy.context(snapshot, messages) : contextMessages(snapshot, messages);
}

/** The deprecated option as each store's options take it. */
export interface SummarizationStoreOptions {
  /** @deprecated Use compaction instead; see {@link SummarizationOptions}. */
  summarization?: SummarizationOptions;
  /**
   * The policy the store's backend prepared once from its own `summarization` option (it wins
   * over `summarization`).
   * @internal
   */
  summaryPolicy?: LegacySummaryPolicy;
}

/** The policy a store runs: the one its backend prepared, else one from its own option. */
export function summaryPolicyOf(opts: SummarizationStoreOptions): LegacySummaryPolicy | undefined {
  return opts.summaryPolicy ?? legacySummaryPolicy(opts.summarization);
}

/** The policy for a store's `summarization` option; none without the option. */
export function legacySummaryPolicy(
  options: SummarizationOptions | undefined,
): LegacySummaryPolicy | undefined {
  return options ? new LegacySummaryPolicy(options) : undefined;
}

/** The messages standing for a snapshot in a store with the policy: a system message, as before. */
function summaryMessagesOf(snapshot: Snapshot): Message[] {
  return [systemMessage(SUMMARY_PREFIX + snapshot.summary), ...(snapshot.pinned ?? [])];
}
