import type { BaseMessage } from '@langchain/core/messages';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { MemoryBackend } from '../core/backend.interface';
import type { MessageRange } from '../core/checkpoint-storage.interface';
import { SessionTooLargeError, ThreadMessagesMissingError } from '../core/errors';
import { KEEP_LOG_META_KEY } from '../core/kept-log';
import type { Message } from '../core/message';
import { decodeMessages } from '../core/message.codec';
import { isValidSessionId } from '../core/session-id';
import { fromBaseMessages, toBaseMessages } from '../langchain/base-message.converter';
import { messageDigest } from './message-digest';

/** The value of the `keep-log` metadata the saver sets on a thread's session. */
const KEEP_LOG_VALUE = 'langgraph';
/** Threads a saver remembers having marked; past it, it forgets them all (marking again is one write). */
const MARKED_THREADS_LIMIT = 10_000;

/** One LangChain message in our form, and whether converting it back gives it exactly. */
export interface SessionForm {
  message: Message;
  /** True when the `/langchain` converters give back a message equal to the original. */
  exact: boolean;
}

/**
 * The session with a thread's id, where the saver keeps the thread's messages: appended as our
 * messages (the `/langchain` converters), so `retrieve()`, the dashboard, recall and export read
 * the conversation, and read back by cursor for the checkpoints that refer to them. The saver
 * marks the session with `keep-log` metadata before its first message, so that no pruning drops
 * what a checkpoint refers to.
 */
export class ThreadSessions {
  private readonly marked = new Set<string>();

  constructor(
    private readonly backend: MemoryBackend,
    private readonly serde: SerializerProtocol,
    private readonly enabled: boolean,
  ) {}

  /** Whether the thread has a session (a thread id that is not a valid session id has none). */
  holds(threadId: string): boolean {
    return this.enabled && isValidSessionId(threadId);
  }

  /**
   * Each message in our form, or null for a type our model has no role for (a `FunctionMessage`,
   * a `ChatMessage` with a custom role). `digests` are the messages' {@link messageDigest}s.
   */
  async formsOf(
    messages: readonly BaseMessage[],
    digests: readonly string[],
  ): Promise<Array<SessionForm | null>> {
    return Promise.all(
      messages.map(async (original, index): Promise<SessionForm | null> => {
        let message: Message;
        try {
          [message] = fromBaseMessages([original]) as [Message];
        } catch {
          return null;
        }
        // Compared as it will be read: through JSON and the store's decoder, then converted back.
        const [stored] = decodeMessages(JSON.parse(JSON.stringify([message])) as unknown[]);
        const [back] = toBaseMessages([stored!]);
        const digest = messageDigest(await this.serde.dumpsTyped(back));
        return { message, exact: digest === digests[index] };
      }),
    );
  }

  /**
   * Appends `messages` to the thread's session, keyed by the checkpoint and `chain` (the chain of
   * the checkpoint's messages, which tells two contents of one checkpoint id apart), so a `put`
   * retried after a failure appends nothing again.
   * @returns the cursor of each message, or null when the session cannot take them (over the
   *   store's size limit: NATS keeps a session in one value).
   */
  async append(
    threadId: string,
    checkpointId: string,
    chain: string,
    messages: readonly Message[],
  ): Promise<number[] | null> {
    if (messages.length === 0) return [];
    const session = await this.backend.open(threadId);
    if (!this.marked.has(threadId)) {
      await session.setMeta(KEEP_LOG_META_KEY, KEEP_LOG_VALUE);
      if (this.marked.size >= MARKED_THREADS_LIMIT) this.marked.clear();
      this.marked.add(threadId);
    }
    const key = `langgraph-${checkpointId}-${chain.slice(0, 16)}`;
    try {
      const { first } = await session.save(messages, { idempotencyKey: key });
      return messages.map((_, index) => first! + index);
    } catch (error) {
      if (error instanceof SessionTooLargeError) return null;
      throw error;
    }
  }

  /**
   * The messages at the cursors of `ranges` (in order) of the thread's session, as LangChain
   * messages.
   * @throws ThreadMessagesMissingError when the session no longer holds one of them.
   */
  async read(
    threadId: string,
    checkpointId: string,
    ranges: readonly MessageRange[],
  ): Promise<BaseMessage[]> {
    if (ranges.length === 0) return [];
    const session = await this.backend.open(threadId);
    const low = Math.min(...ranges.map(([first]) => first));
    const high = Math.max(...ranges.map(([, last]) => last));
    const entries = await session.entries({ after: low - 1, limit: high - low + 1 });
    const byCursor = new Map(entries.map((entry) => [entry.cursor, entry.message]));
    const messages: Message[] = [];
    for (const [first, last] of ranges) {
      for (let cursor = first; cursor <= last; cursor++) {
        const message = byCursor.get(cursor);
        if (!message) throw new ThreadMessagesMissingError(threadId, checkpointId, cursor);
        messages.push(message);
      }
    }
    return toBaseMessages(messages);
  }

  /** Removes the thread's session, if it has one. */
  async delete(threadId: string): Promise<void> {
    this.marked.delete(threadId);
    if (this.holds(threadId)) await this.backend.delete(threadId);
  }
}
