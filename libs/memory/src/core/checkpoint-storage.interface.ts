/**
 * The port between the LangGraph checkpoint saver (`/langgraph`) and a store's own storage. The
 * saver serializes everything before it reaches a storage (`SerializedValue`), so a storage knows
 * nothing of LangGraph: it keeps records of one thread keyed by strings and positions.
 *
 * A thread has, per namespace (`''` is the root graph), checkpoints ordered by id (LangGraph's ids
 * sort by time), channel values keyed by channel and version (stored only when they change), and
 * the pending writes of each checkpoint. A thread also has one message log: serialized messages
 * appended once, in order, at positions from 1; checkpoints refer to ranges of it. (The saver
 * keeps most messages in the thread's session instead; the log holds those it cannot keep there.)
 */

/** A value the saver serialized: LangGraph's serializer type tag and its bytes. */
export interface SerializedValue {
  type: string;
  data: Uint8Array;
}

/** One checkpoint as stored (its channel values are kept apart, as {@link ChannelBlob}s). */
export interface CheckpointRecord {
  threadId: string;
  /** `''` for the root graph. */
  namespace: string;
  checkpointId: string;
  /** The checkpoint it was made from; null for a thread's first. */
  parentId: string | null;
  /** The checkpoint without its channel values. */
  checkpoint: SerializedValue;
  metadata: SerializedValue;
  /** The `[channel, version]` of every channel the checkpoint has a value for. */
  channelVersions: ReadonlyArray<readonly [string, string]>;
  /** The positions of its thread's message log it refers to, if any (read with it). */
  messageRanges?: readonly MessageRange[];
}

/** A checkpoint with the channel values it needs and its pending writes. */
export interface LoadedCheckpoint {
  record: CheckpointRecord;
  /** The stored ones of its `channelVersions` (a channel never written has none). */
  blobs: ChannelBlob[];
  /** Its pending writes, in no particular order. */
  writes: PendingWriteRecord[];
  /** The messages of its `messageRanges`, in their order (absent without ranges). */
  messages?: SerializedValue[];
}

/** The value of one channel at one version, in one thread and namespace. */
export interface ChannelBlob {
  channel: string;
  /** The channel version, as a string. */
  version: string;
  value: SerializedValue;
}

/** A pending write of one task to one channel, against one checkpoint. */
export interface PendingWriteRecord {
  taskId: string;
  /** `''` when the task path is not known. */
  taskPath: string;
  /** The write's index in its task; negative for special channels (errors, interrupts). */
  idx: number;
  channel: string;
  value: SerializedValue;
}

/** Where pending writes belong. */
export interface CheckpointAddress {
  threadId: string;
  namespace: string;
  checkpointId: string;
}

/** What {@link CheckpointStorage.listCheckpoints} returns, newest (highest id) first. */
export interface CheckpointListQuery {
  /** Every thread when absent. */
  threadId?: string;
  /** Every namespace when absent. */
  namespace?: string;
  /** Only this checkpoint. */
  checkpointId?: string;
  /** Only checkpoints whose id sorts before this one. */
  before?: string;
  /** At most this many. */
  limit?: number;
}

/** One message of a thread's message log. */
export interface ThreadMessageRecord {
  /** From 1, with no gaps. */
  position: number;
  /**
   * A digest of this message and every one before it: two logs share a prefix up to a position
   * exactly when their chains are equal there.
   */
  chain: string;
  value: SerializedValue;
}

/** The end of a thread's message log. */
export interface MessageLogHead {
  /** Messages in the log (the last position). */
  count: number;
  /** The chain of the last message; `''` for an empty log. */
  chain: string;
}

/** Messages a checkpoint adds to its thread's log, where the writer saw the log end. */
export interface MessageAppend {
  /** How many messages the log held when the writer read it; the new ones follow. */
  expectedCount: number;
  records: readonly ThreadMessageRecord[];
}

/** An inclusive range of message positions. */
export type MessageRange = readonly [first: number, last: number];

/**
 * Checkpoints, channel values, pending writes and message logs of LangGraph threads, kept in one
 * store's own storage. Every method is safe to call from several processes at once on one store.
 */
export interface CheckpointStorage {
  /**
   * Stores a checkpoint with the channel values that changed in it and the messages it adds to
   * the thread's message log, all or nothing. Blobs already stored (same thread, namespace,
   * channel and version) are left as they are; a checkpoint stored again with the same id
   * replaces the first. The messages are appended only if the log still holds exactly
   * `messages.expectedCount`; otherwise nothing at all is stored.
   * @returns false when the log had moved (nothing was stored), else true.
   */
  putCheckpoint(
    record: CheckpointRecord,
    blobs: readonly ChannelBlob[],
    messages?: MessageAppend,
  ): Promise<boolean>;
  /** The checkpoint, or the namespace's newest without `checkpointId`; null when there is none. */
  getCheckpoint(
    threadId: string,
    namespace: string,
    checkpointId?: string,
  ): Promise<LoadedCheckpoint | null>;
  /** Checkpoints matching `query`, newest first (by checkpoint id). */
  listCheckpoints(query: CheckpointListQuery): Promise<LoadedCheckpoint[]>;
  /**
   * Stores pending writes: a write whose `idx` is negative replaces one with the same task and
   * index; any other is stored only if the task has none at that index yet.
   */
  putWrites(address: CheckpointAddress, writes: readonly PendingWriteRecord[]): Promise<void>;
  /** The end of the thread's message log. */
  messageLogHead(threadId: string): Promise<MessageLogHead>;
  /** The messages at the positions of `ranges`, in their order. */
  readMessages(threadId: string, ranges: readonly MessageRange[]): Promise<SerializedValue[]>;
  /** Ids of every thread with a checkpoint or a message. */
  threadIds(): Promise<string[]>;
  /**
   * Removes the checkpoints of a thread (with their writes and the blobs no kept checkpoint
   * needs): every one but the newest of each namespace with `keepLatest`, else all of them. The
   * message log stays.
   */
  pruneThread(threadId: string, keepLatest: boolean): Promise<void>;
  /** Removes everything of the thread: checkpoints, blobs, writes and its message log. */
  deleteThread(threadId: string): Promise<void>;
}
