import { createHash } from 'node:crypto';
import { isBaseMessage, type BaseMessage } from '@langchain/core/messages';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type {
  CheckpointStorage,
  LoadedCheckpoint,
  MessageAppend,
  MessageLogHead,
  MessageRange,
  SerializedValue,
  ThreadMessageRecord,
} from '../core/checkpoint-storage.interface';

/** The serializer type of a `messages` blob that refers to the thread's message log. */
export const MESSAGE_LOG_REF_TYPE = 'agent-memory/message-log-ref';

/** What a checkpoint stores for its root `messages` channel: where its messages are in the log. */
export interface MessageLogRef {
  /** Positions of the channel's messages in the thread's log, in the channel's order. */
  ranges: MessageRange[];
  /** How many messages the channel holds. */
  count: number;
  /** The chain of the channel's messages (see {@link chainOf}); `''` when empty. */
  chain: string;
}

/** What {@link ThreadMessageLog.prepare} found for a checkpoint's messages. */
export interface PreparedMessages {
  ref: MessageLogRef;
  /** The messages new to the thread (after its parent checkpoint's), for the session. */
  added: BaseMessage[];
  /** The messages to append to the log with the checkpoint. */
  append: MessageAppend;
}

/** The checkpoint a new one was made from. */
export interface ParentCheckpoint {
  checkpointId: string;
  /** Its root `messages` reference; null when its channel is not in the log. */
  loadRef(): Promise<MessageLogRef | null>;
}

/** Whether a channel value is a list of LangChain messages (what is kept in the message log). */
export function isMessageList(value: unknown): value is BaseMessage[] {
  return Array.isArray(value) && value.every((item) => isBaseMessage(item));
}

/**
 * The message log of each thread: every message of the root `messages` channel stored once, in
 * the order it first appeared, with checkpoints referring to ranges of it. A checkpoint that only
 * appends to its parent's messages (what a graph does step by step) stores the new ones and a
 * reference; after a fork, a removal or an edit, the messages after the first difference from
 * the log are stored again.
 */
export class ThreadMessageLog {
  /** The reference of the checkpoint each thread last stored here, to skip a read on the next. */
  private readonly last = new Map<string, { checkpointId: string; ref: MessageLogRef }>();
  /** The end of each thread's log as this saver last saw it: tried first, read again if stale. */
  private readonly heads = new Map<string, MessageLogHead>();

  constructor(
    private readonly storage: CheckpointStorage,
    private readonly serde: SerializerProtocol,
  ) {}

  /**
   * What a checkpoint's root `messages` channel needs: the messages the log does not hold yet
   * (to append with the checkpoint, after the log's end as this saver last saw it) and the
   * reference to store. Settle it with {@link settle} once the checkpoint is stored or refused.
   * @param parent the parent checkpoint, with a loader of its channel's reference (read only when
   *   this log did not store that checkpoint itself).
   * @param reread read the log's end from the storage (after a refused append).
   */
  async prepare(
    threadId: string,
    messages: readonly BaseMessage[],
    parent: ParentCheckpoint | null,
    reread = false,
  ): Promise<PreparedMessages> {
    const values = await Promise.all(
      messages.map(async (message) => toValue(await this.serde.dumpsTyped(message))),
    );
    const chains = chainsOf('', values);
    const cached = this.last.get(threadId);
    const parentRef = !parent
      ? null
      : cached?.checkpointId === parent.checkpointId
        ? cached.ref
        : await parent.loadRef();
    const plan = await this.plan(threadId, values, chains, parentRef);
    const head =
      (!reread && this.heads.get(threadId)) || (await this.storage.messageLogHead(threadId));
    const fresh = values.slice(plan.shared);
    const records = chainsOf(head.chain, fresh).map((chain, index): ThreadMessageRecord => ({
      position: head.count + 1 + index,
      chain,
      value: fresh[index]!,
    }));
    const ranges = [...plan.ranges];
    if (records.length > 0) appendRange(ranges, [head.count + 1, head.count + records.length]);
    const added = plan.known
      ? messages.slice(plan.shared).filter((message) => !plan.known!.has(message.id ?? ''))
      : messages.slice(plan.shared);
    return {
      ref: { ranges, count: values.length, chain: chains.at(-1) ?? '' },
      added,
      append: { expectedCount: head.count, records },
    };
  }

  /** Notes whether a prepared checkpoint was stored (what the next one builds on) or refused. */
  settle(
    threadId: string,
    checkpointId: string,
    prepared: PreparedMessages,
    stored: boolean,
  ): void {
    if (!stored) {
      this.heads.delete(threadId);
      return;
    }
    const { records, expectedCount } = prepared.append;
    if (records.length > 0) {
      this.heads.set(threadId, {
        count: expectedCount + records.length,
        chain: records.at(-1)!.chain,
      });
    }
    this.last.set(threadId, { checkpointId, ref: prepared.ref });
  }

  /**
   * The messages a reference points to, deserialized: those read with the checkpoint when it
   * stored this reference itself, else read from the log.
   */
  async read(
    threadId: string,
    ref: MessageLogRef,
    loaded?: LoadedCheckpoint,
  ): Promise<BaseMessage[]> {
    const values =
      loaded?.messages && JSON.stringify(loaded.record.messageRanges) === JSON.stringify(ref.ranges)
        ? loaded.messages
        : await this.storage.readMessages(threadId, ref.ranges);
    return Promise.all(values.map((value) => this.serde.loadsTyped(value.type, value.data)));
  }

  /** Forgets what it remembered of a thread (after the thread is deleted or pruned). */
  forget(threadId: string): void {
    this.last.delete(threadId);
    this.heads.delete(threadId);
  }

  /**
   * How many of `values` the log already holds and where: the parent's messages when `values`
   * extend them, else the longest prefix shared with the log itself. `known` is set when the
   * messages do not extend the parent's: the ids the parent had, so that messages stored again
   * are not taken as new.
   */
  private async plan(
    threadId: string,
    values: readonly SerializedValue[],
    chains: readonly string[],
    parent: MessageLogRef | null,
  ): Promise<{ shared: number; ranges: MessageRange[]; known: Set<string> | null }> {
    if (parent && (parent.count === 0 || chains[parent.count - 1] === parent.chain)) {
      return { shared: parent.count, ranges: [...parent.ranges], known: null };
    }
    const logChains = await this.storage.messageLogChains(threadId);
    let shared = 0;
    while (shared < chains.length && logChains[shared] === chains[shared]) shared++;
    const known = new Set(
      parent ? (await this.read(threadId, parent)).map((message) => message.id ?? '') : [],
    );
    known.delete('');
    return { shared, ranges: shared > 0 ? [[1, shared]] : [], known };
  }
}

/** Encodes a reference as a blob value. */
export function encodeRef(ref: MessageLogRef): SerializedValue {
  return { type: MESSAGE_LOG_REF_TYPE, data: new TextEncoder().encode(JSON.stringify(ref)) };
}

/** Decodes what {@link encodeRef} wrote. */
export function decodeRef(value: SerializedValue): MessageLogRef {
  return JSON.parse(new TextDecoder().decode(value.data)) as MessageLogRef;
}

function toValue([type, data]: [string, Uint8Array]): SerializedValue {
  return { type, data };
}

/**
 * The chain of each value after `start`: a digest of the value and every one before it, so two
 * lists share a prefix up to a position exactly when their chains are equal there.
 */
function chainsOf(start: string, values: readonly SerializedValue[]): string[] {
  let chain = start;
  return values.map((value) => {
    chain = createHash('sha256')
      .update(chain)
      .update('\u0000')
      .update(value.type)
      .update('\u0000')
      .update(value.data)
      .digest('base64url')
      .slice(0, 24);
    return chain;
  });
}

/** Adds `range` to `ranges`, merged with the last one when they touch. */
function appendRange(ranges: MessageRange[], range: MessageRange): void {
  const last = ranges.at(-1);
  if (last && last[1] + 1 === range[0]) ranges[ranges.length - 1] = [last[0], range[1]];
  else ranges.push(range);
}
