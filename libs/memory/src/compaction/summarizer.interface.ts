import type { CallOptions } from '../core/memory.interface';
import type { Message } from '../core/message';

/** What a {@link Summarizer} is given: the previous summary and the messages to fold into it. */
export interface SummaryInput {
  /** The summary of everything covered before, or null for the first snapshot. */
  previous: string | null;
  /** Only the messages newly covered: the previous summary already stands for the older ones. */
  messages: Message[];
  /**
   * The messages the snapshot pins (sent verbatim after the summary, such as the task): a summary
   * need not repeat what they say. Absent when nothing is pinned.
   */
  pinned?: Message[];
}

/** Turns a previous summary and newly covered messages into the updated summary. */
export interface Summarizer {
  summarize(input: SummaryInput, opts?: CallOptions): Promise<string>;
}
