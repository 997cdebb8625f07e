import { isBaseMessage, type BaseMessage } from '@langchain/core/messages';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type {
  CheckpointStorage,
  LoadedCheckpoint,
  MessageAppend,
  MessageLogHead,
  SerializedValue,
  ThreadMessageRecord,
} from '../core/checkpoint-storage.interface';
import type { Message } from '../core/message';
import { chainsOf, messageDigest } from './message-digest';
import { placesOf, rangesOf, segmentsOf, type MessagePlace, type MessageRef } from './message-ref';
import type { ThreadSessions } from './thread-sessions';

/** What {@link ThreadMessageLog.prepare} found for a checkpoint's messages. */
export interface PreparedMessages {
  ref: MessageRef;
  /** The messages to append to the checkpoint storage's log with the checkpoint. */
  append: MessageAppend;
}

/** The checkpoint a new one was made from. */
export interface ParentCheckpoint {
  checkpointId: string;
  /** Its root `messages` reference; null when its channel is not a reference. */
  loadRef(): Promise<MessageRef | null>;
}

/** Whether a channel value is a list of LangChain messages (what is kept once per thread). */
export function isMessageList(value: unknown): value is BaseMessage[] {
  return Array.isArray(value) && value.every((item) => isBaseMessage(item));
}

/**
 * Where each thread's root `messages` are kept, once: in the session with the thread's id, as
 * our messages, when the `/langchain` converters give each back exactly; otherwise (a message
 * they would change, a type our model has no role for, a thread id that is no session id, a
 * session over its store's size limit) in the thread's message log of the checkpoint storage, as
 * LangGraph serialized it. A checkpoint refers to its messages by place (see {@link MessageRef});
 * a checkpoint that only appends to its parent's messages (what a graph does step by step) stores
 * the new ones and a reference. After a fork, a removal or an edit, the messages its parent had
 * keep their places and only the others are stored.
 */
export class ThreadMessageLog {
  /** The reference of the checkpoint each thread last stored here, to skip a read on the next. */
  private readonly last = new Map<string, { checkpointId: string; ref: MessageRef }>();
  /** The end of each thread's log as this saver last saw it: tried first, read again if stale. */
  private readonly heads = new Map<string, MessageLogHead>();
  constructor(
    private readonly storage: CheckpointStorage,
    private readonly sessions: ThreadSessions,
    private readonly serde: SerializerProtocol,
  ) {}

  /**
   * Stores what a checkpoint's root `messages` channel adds to the thread's session and returns
   * the reference to store, with what to append to the log with the checkpoint (after the log's
   * end as this saver last saw it). Settle it with {@link settle} once the checkpoint is stored
   * or refused.
   * @param parent the parent checkpoint, with a loader of its channel's reference (read only when
   *   this log did not store that checkpoint itself).
   * @param reread read the log's end from the storage (after a refused append).
   */
  async prepare(
    threadId: string,
    checkpointId: string,
    messages: readonly BaseMessage[],
    parent: ParentCheckpoint | null,
    reread = false,
  ): Promise<PreparedMessages> {
    const values = await Promise.all(messages.map((message) => this.serde.dumpsTyped(message)));
    const digests = values.map(messageDigest);
    const chains = chainsOf(digests);
    const cached = this.last.get(threadId);
    const parentRef = !parent
      ? null
      : cached?.checkpointId === parent.checkpointId
        ? cached.ref
        : await parent.loadRef();
    const places = await this.knownPlaces(threadId, parent, parentRef, digests, chains);
    const fresh = places.flatMap((place, index) => (place ? [] : [index]));
    const chain = chains.at(-1) ?? '';
    const inSession = await this.toSession(threadId, checkpointId, chain, messages, digests, fresh);
    for (const [index, cursor] of inSession) places[index] = ['session', cursor];

    const toLog = fresh.filter((index) => !inSession.has(index));
    const head =
      (!reread && this.heads.get(threadId)) || (await this.storage.messageLogHead(threadId));
    const logChains = chainsOf(
      toLog.map((index) => digests[index]!),
      head.chain,
    );
    const records = toLog.map((index, k): ThreadMessageRecord => {
      places[index] = ['log', head.count + 1 + k];
      const [type, data] = values[index]!;
      return { position: head.count + 1 + k, chain: logChains[k]!, value: { type, data } };
    });
    return {
      ref: {
        segments: segmentsOf(places as MessagePlace[]),
        count: values.length,
        chain,
      },
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
   * The messages a reference points to: those of the log read with the checkpoint when it
   * stored this reference itself, else read from the log; those of the session read from it.
   */
  async read(
    threadId: string,
    checkpointId: string,
    ref: MessageRef,
    loaded?: LoadedCheckpoint,
  ): Promise<BaseMessage[]> {
    const logRanges = rangesOf(ref, 'log');
    const logValues =
      logRanges.length === 0
        ? []
        : loaded?.messages &&
            JSON.stringify(loaded.record.messageRanges) === JSON.stringify(logRanges)
          ? loaded.messages
          : await this.storage.readMessages(threadId, logRanges);
    const fromLog = await Promise.all(
      logValues.map((value: SerializedValue) => this.serde.loadsTyped(value.type, value.data)),
    );
    const fromSession = await this.sessions.read(threadId, checkpointId, rangesOf(ref, 'session'));
    let nextLog = 0;
    let nextSession = 0;
    return placesOf(ref).map(([source]) =>
      source === 'log' ? fromLog[nextLog++] : fromSession[nextSession++]!,
    );
  }

  /** Forgets what it remembered of a thread (after the thread is deleted or pruned). */
  forget(threadId: string): void {
    this.last.delete(threadId);
    this.heads.delete(threadId);
  }

  /**
   * The places of the messages the parent checkpoint already has (null for the others): its
   * first ones when `digests` extend its messages, else each message equal to one of its.
   */
  private async knownPlaces(
    threadId: string,
    parent: ParentCheckpoint | null,
    parentRef: MessageRef | null,
    digests: readonly string[],
    chains: readonly string[],
  ): Promise<Array<MessagePlace | null>> {
    const places: Array<MessagePlace | null> = digests.map(() => null);
    if (!parent || !parentRef) return places;
    const parentPlaces = placesOf(parentRef);
    if (parentRef.count === 0 || chains[parentRef.count - 1] === parentRef.chain) {
      parentPlaces.forEach((place, index) => (places[index] = place));
      return places;
    }
    const parentMessages = await this.read(threadId, parent.checkpointId, parentRef);
    const free = new Map<string, MessagePlace[]>();
    for (const [index, message] of parentMessages.entries()) {
      const digest = messageDigest(await this.serde.dumpsTyped(message));
      const places = free.get(digest) ?? [];
      places.push(parentPlaces[index]!);
      free.set(digest, places);
    }
    digests.forEach((digest, index) => (places[index] = free.get(digest)?.shift() ?? null));
    return places;
  }

  /**
   * Appends the messages at `fresh` indexes that have a session form to the thread's session.
   * @returns the cursor of each message kept there (those the converters give back exactly); the
   *   others, if they have a form, are in the session too, for its readers, and go to the log.
   */
  private async toSession(
    threadId: string,
    checkpointId: string,
    chain: string,
    messages: readonly BaseMessage[],
    digests: readonly string[],
    fresh: readonly number[],
  ): Promise<Map<number, number>> {
    const kept = new Map<number, number>();
    if (fresh.length === 0 || !this.sessions.holds(threadId)) return kept;
    const forms = await this.sessions.formsOf(
      fresh.map((index) => messages[index]!),
      fresh.map((index) => digests[index]!),
    );
    const batch: Message[] = [];
    const exact: Array<number | null> = [];
    forms.forEach((form, k) => {
      if (!form) return;
      batch.push(form.message);
      exact.push(form.exact ? fresh[k]! : null);
    });
    const cursors = await this.sessions.append(threadId, checkpointId, chain, batch);
    cursors?.forEach((cursor, k) => {
      if (exact[k] !== null) kept.set(exact[k]!, cursor);
    });
    return kept;
  }
}
