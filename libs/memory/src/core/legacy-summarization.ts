import { deepFreeze } from './deep-freeze';
import { SnapshotsUnsupportedError } from './errors';
import type { CallOptions, Cursor, Entry, SaveOptions, SessionStore } from './memory.interface';
import type { LlmClient } from './llm-client.interface';
import { systemMessage, textContent, type Message } from './message';
import { SUMMARY_PREFIX } from './snapshot';

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
 * What a store lends the deprecated summarisation: its id and an atomic swap of its oldest kept
 * messages. Every store implements it; it is not part of the public contract.
 * @internal
 */
export interface LegacyRewritable extends SessionStore {
  readonly sessionId: string;
  /**
   * Replaces the stored entries `from`…`to` by `summary` (at cursor `to`) in one atomic step, if
   * `from` is still the oldest kept entry; else changes nothing (another writer got there first).
   * @internal
   */
  replaceOldest(from: Cursor, to: Cursor, summary: Message): Promise<void>;
}

/**
 * The one implementation of the deprecated `summarization` option, which every store's `open`
 * (and `new SimpleMemory`) applies: the same store, except that a save that stored messages is
 * followed by a summarisation when due (see {@link LegacySummarization}), and `saveSnapshot`
 * throws {@link SnapshotsUnsupportedError}. Without options, the store itself.
 * @throws RangeError when the options are out of range.
 * @internal
 */
export function withLegacySummarization<S extends LegacyRewritable>(
  store: S,
  options: SummarizationOptions | undefined,
): S {
  if (!options) return store;
  const legacy = new LegacySummarization(options);
  const save = async (messages: readonly Message[], opts?: SaveOptions) => {
    const result = await store.save(messages, opts);
    if (!result.replayed && result.last !== null) await summarizeIfDue(store, legacy, opts);
    return result;
  };
  const saveSnapshot = async (): Promise<never> => {
    throw new SnapshotsUnsupportedError(store.sessionId);
  };
  // A proxy rather than a subclass: the store keeps its class (`instanceof`) and its own fields.
  return new Proxy(store, {
    get(target, property) {
      if (property === 'save') return save;
      if (property === 'saveSnapshot') return saveSnapshot;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Plan on what is stored, ask the LLM holding no lock, then swap if nothing moved meanwhile. */
async function summarizeIfDue(
  store: LegacyRewritable,
  legacy: LegacySummarization,
  opts?: CallOptions,
): Promise<void> {
  try {
    const due = legacy.plan(await store.entries({ limit: legacy.threshold }));
    if (!due) return;
    const summary = deepFreeze(await legacy.summarize(due, opts));
    await store.replaceOldest(due[0]!.cursor, due[due.length - 1]!.cursor, summary);
  } catch (error) {
    legacy.reportError(error);
  }
}

/**
 * The deprecated count-based summarisation's rules. It works in two steps so that no store holds a
 * lock while the LLM answers: {@link plan} picks the oldest `size` entries once the threshold is
 * reached, {@link summarize} asks the LLM; the store then swaps the summary in only if those
 * entries are still the oldest kept ones, so messages written meanwhile are never lost.
 */
export class LegacySummarization {
  readonly threshold: number;
  readonly size: number;

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

  /** The entries to replace by a summary, or null when fewer than `threshold` are kept. */
  plan(kept: readonly Entry[]): Entry[] | null {
    return kept.length >= this.threshold ? kept.slice(0, this.size) : null;
  }

  /** One system message summarising `entries`. Throws what the LLM threw. */
  async summarize(entries: readonly Entry[], opts?: CallOptions): Promise<Message> {
    const transcript = entries
      .map(({ message }) => `${message.role}: ${textContent(message)}`)
      .join('\n');
    const { message } = await this.options.llm.complete(
      [
        systemMessage(LEGACY_INSTRUCTIONS),
        { role: 'user', parts: [{ type: 'text', text: transcript }] },
      ],
      opts,
    );
    return systemMessage(SUMMARY_PREFIX + textContent(message));
  }

  /** Tells `onError` about a failed summarisation. */
  reportError(error: unknown): void {
    this.options.onError?.(error);
  }
}
