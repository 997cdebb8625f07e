import type { CallOptions, Entry } from './memory.interface';
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
 * The deprecated count-based summarisation, shared by every store. It works in two steps so that
 * no store holds a lock while the LLM answers: {@link plan} picks the oldest `size` entries once the
 * threshold is reached, {@link summarize} asks the LLM; the store then swaps the summary in only if
 * those entries are still the oldest kept ones, so messages written meanwhile are never lost.
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

  reportError(error: unknown): void {
    this.options.onError?.(error);
  }
}
