import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { MemoryBackend } from '../core/backend.interface';
import type {
  ChannelBlob,
  CheckpointStorage,
  LoadedCheckpoint,
  PendingWriteRecord,
  SerializedValue,
} from '../core/checkpoint-storage.interface';
import { checkpointStorageFor } from './checkpoint-storage-for';
import { MESSAGE_LOG_REF_TYPE, decodeRef, encodeRef, rangesOf } from './message-ref';
import {
  ThreadMessageLog,
  isMessageList,
  type ParentCheckpoint,
  type PreparedMessages,
} from './thread-message-log';
import { ThreadSessions } from './thread-sessions';
import { ConcurrentUpdateError } from '../core/errors';

/** Options of {@link MemoryCheckpointSaver.open}. */
export interface MemoryCheckpointSaverOptions {
  /** How channel values, metadata and writes are serialized. Default LangGraph's own. */
  serde?: SerializerProtocol;
  /**
   * Keep the messages of each thread's root `messages` channel in the session with the thread's
   * id (where the dashboard, `retrieve()`, recall, export and retention see them, and where the
   * checkpoints read them back). Default true; with false a thread has no session and its
   * messages are kept in the checkpoint storage alone.
   */
  sessions?: boolean;
}

/** Options of {@link MemoryCheckpointSaver.prune}. */
export interface PruneCheckpointsOptions {
  /**
   * `keep_latest` (default): keep the newest checkpoint of each namespace of each thread, with
   * what it needs (its channel values, its pending writes, the messages it refers to);
   * `delete`: remove every checkpoint of the threads (their sessions stay).
   */
  strategy?: 'keep_latest' | 'delete';
}

/** The channel whose root value is the thread's conversation. */
const MESSAGES_CHANNEL = 'messages';
/** The serializer type of a channel in `newVersions` with no value (it was emptied). */
const EMPTY_TYPE = 'empty';
const ROOT_NAMESPACE = '';
/** Attempts at storing a checkpoint while other writers keep appending to its thread's log. */
const MAX_PUT_ATTEMPTS = 20;
/** Digits of a version's counter (see `getNextVersion`). */
const VERSION_DIGITS = 16;

/**
 * A LangGraph checkpointer over any {@link MemoryBackend}: checkpoints, channel values and
 * pending writes in the backend's own storage (tables in PostgreSQL, keys in the NATS bucket,
 * files under the JSON-file folder, memory for the in-process store). A channel value is stored
 * only in the checkpoint where it changed; the messages of the root `messages` channel are kept
 * once, in the session with the thread's id (its append log, which checkpoints refer to by
 * cursor), so storage grows with the conversation rather than its square and the thread is a
 * session to every reader of the store (see docs/agent-sdks.md).
 */
export class MemoryCheckpointSaver extends BaseCheckpointSaver {
  private readonly messages: ThreadMessageLog;
  private readonly sessions: ThreadSessions;

  private constructor(
    backend: MemoryBackend,
    private readonly storage: CheckpointStorage,
    options: MemoryCheckpointSaverOptions,
  ) {
    super(options.serde);
    this.sessions = new ThreadSessions(backend, this.serde, options.sessions !== false);
    this.messages = new ThreadMessageLog(storage, this.sessions, this.serde);
  }

  /**
   * A saver keeping its checkpoints in `backend`'s storage (a backend wrapped by
   * `instrumentBackend` or `withRecall` works too).
   * @throws TypeError when the backend's store keeps no checkpoints.
   */
  static async open(
    backend: MemoryBackend,
    opts: MemoryCheckpointSaverOptions = {},
  ): Promise<MemoryCheckpointSaver> {
    return new MemoryCheckpointSaver(backend, await checkpointStorageFor(backend), opts);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId === undefined) return undefined;
    const namespace = (config.configurable?.checkpoint_ns as string | undefined) ?? ROOT_NAMESPACE;
    const loaded = await this.storage.getCheckpoint(
      threadId,
      namespace,
      getCheckpointId(config) || undefined,
    );
    return loaded ? this.toTuple(loaded) : undefined;
  }

  async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const { filter, before } = options;
    let remaining = options.limit;
    const found = await this.storage.listCheckpoints({
      threadId: config.configurable?.thread_id as string | undefined,
      namespace: config.configurable?.checkpoint_ns as string | undefined,
      checkpointId: (config.configurable?.checkpoint_id as string | undefined) || undefined,
      before: (before?.configurable?.checkpoint_id as string | undefined) || undefined,
      limit: filter ? undefined : remaining,
    });
    for (const loaded of found) {
      if (remaining !== undefined && remaining <= 0) return;
      const metadata = (await this.load(loaded.record.metadata)) as Record<string, unknown>;
      if (filter && !Object.entries(filter).every(([k, v]) => isDeepStrictEqual(metadata[k], v))) {
        continue;
      }
      if (remaining !== undefined) remaining -= 1;
      yield this.toTuple(loaded, metadata);
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId === undefined) {
      throw new TypeError(
        'MemoryCheckpointSaver.put: the config has no "configurable.thread_id"; pass one to the graph, such as { configurable: { thread_id: "chat-1" } }',
      );
    }
    const namespace = (config.configurable?.checkpoint_ns as string | undefined) ?? ROOT_NAMESPACE;
    const parentId = (config.configurable?.checkpoint_id as string | undefined) || null;
    const stored = copyCheckpoint(checkpoint);
    const values = stored.channel_values as Record<string, unknown>;
    stored.channel_values = {};
    const messages =
      namespace === ROOT_NAMESPACE &&
      MESSAGES_CHANNEL in newVersions &&
      isMessageList(values[MESSAGES_CHANNEL])
        ? values[MESSAGES_CHANNEL]
        : null;
    const blobs = await Promise.all(
      Object.entries(newVersions)
        .filter(([channel]) => !(messages && channel === MESSAGES_CHANNEL))
        .map(async ([channel, version]): Promise<ChannelBlob> => ({
          channel,
          version: String(version),
          value:
            channel in values
              ? await this.dump(values[channel])
              : { type: EMPTY_TYPE, data: new Uint8Array() },
        })),
    );
    const record = {
      threadId,
      namespace,
      checkpointId: checkpoint.id,
      parentId,
      checkpoint: await this.dump(stored),
      metadata: await this.dump(metadata),
      channelVersions: Object.entries(checkpoint.channel_versions).map(
        ([c, v]) => [c, String(v)] as const,
      ),
    };
    if (!messages) {
      await this.storage.putCheckpoint(record, blobs);
    } else {
      const parent = parentId ? this.parentOf(threadId, parentId) : null;
      let prepared = await this.messages.prepare(threadId, checkpoint.id, messages, parent);
      const messagesBlob = (p: PreparedMessages): ChannelBlob => ({
        channel: MESSAGES_CHANNEL,
        version: String(newVersions[MESSAGES_CHANNEL]),
        value: encodeRef(p.ref),
      });
      for (let attempt = 1; ; attempt++) {
        const ok = await this.storage.putCheckpoint(
          { ...record, messageRanges: rangesOf(prepared.ref, 'log') },
          [...blobs, messagesBlob(prepared)],
          prepared.append,
        );
        this.messages.settle(threadId, checkpoint.id, prepared, ok);
        if (ok) break;
        // Another writer appended to the thread's log first: build on where it ends now.
        if (attempt >= MAX_PUT_ATTEMPTS) throw new ConcurrentUpdateError(threadId, attempt);
        prepared = await this.messages.prepare(threadId, checkpoint.id, messages, parent, true);
      }
    }
    return {
      configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id },
    };
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const threadId = config.configurable?.thread_id as string | undefined;
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (threadId === undefined || !checkpointId) {
      throw new TypeError(
        'MemoryCheckpointSaver.putWrites: the config needs "configurable.thread_id" and "configurable.checkpoint_id"',
      );
    }
    const records = await Promise.all(
      writes.map(async ([channel, value], index): Promise<PendingWriteRecord> => ({
        taskId,
        taskPath: taskPath ?? '',
        idx: WRITES_IDX_MAP[channel] ?? index,
        channel,
        value: await this.dump(value),
      })),
    );
    const namespace = (config.configurable?.checkpoint_ns as string | undefined) ?? ROOT_NAMESPACE;
    await this.storage.putWrites({ threadId, namespace, checkpointId }, records);
  }

  /** Removes the thread's checkpoints, writes and message log, and its session. */
  async deleteThread(threadId: string): Promise<void> {
    this.messages.forget(threadId);
    await this.storage.deleteThread(threadId);
    await this.sessions.delete(threadId);
  }

  /**
   * Removes old checkpoints of `threadIds` (every thread when absent): all but the newest of each
   * namespace (`keep_latest`, default), or all (`delete`). What a kept checkpoint needs stays,
   * and so do the thread's message log and its session.
   */
  async prune(threadIds?: readonly string[], opts: PruneCheckpointsOptions = {}): Promise<void> {
    const strategy = opts.strategy ?? 'keep_latest';
    if (strategy !== 'keep_latest' && strategy !== 'delete') {
      throw new TypeError(
        `prune: strategy must be "keep_latest" or "delete", got ${String(strategy)}`,
      );
    }
    for (const threadId of threadIds ?? (await this.storage.threadIds())) {
      this.messages.forget(threadId);
      await this.storage.pruneThread(threadId, strategy === 'keep_latest');
    }
  }

  /**
   * Versions that stay unique across forks: a value is stored once per channel version, and two
   * branches from one checkpoint would otherwise both write their next value as the same version.
   * The counter, zero-padded, keeps them in order as strings; a random part tells branches apart.
   * They are strings at run time (LangGraph compares them as such), typed as numbers so the saver
   * fits where LangGraph's graphs expect a `BaseCheckpointSaver`.
   */
  override getNextVersion(current: number | undefined): number {
    const counter =
      current === undefined ? 0 : Number.parseInt(String(current).split('.')[0]!, 10) || 0;
    const version = `${String(counter + 1).padStart(VERSION_DIGITS, '0')}.${randomBytes(8).toString('hex')}`;
    return version as unknown as number;
  }

  private parentOf(threadId: string, parentId: string): ParentCheckpoint {
    return {
      checkpointId: parentId,
      loadRef: async () => {
        const parent = await this.storage.getCheckpoint(threadId, ROOT_NAMESPACE, parentId);
        const blob = parent?.blobs.find((b) => b.channel === MESSAGES_CHANNEL);
        return blob?.value.type === MESSAGE_LOG_REF_TYPE ? decodeRef(blob.value) : null;
      },
    };
  }

  private async toTuple(loaded: LoadedCheckpoint, metadata?: unknown): Promise<CheckpointTuple> {
    const { record } = loaded;
    const checkpoint = (await this.load(record.checkpoint)) as Checkpoint;
    const values: Record<string, unknown> = {};
    for (const blob of loaded.blobs) {
      if (blob.value.type === EMPTY_TYPE) continue;
      values[blob.channel] =
        blob.value.type === MESSAGE_LOG_REF_TYPE
          ? await this.messages.read(
              record.threadId,
              record.checkpointId,
              decodeRef(blob.value),
              loaded,
            )
          : await this.load(blob.value);
    }
    checkpoint.channel_values = values;
    const configurable = { thread_id: record.threadId, checkpoint_ns: record.namespace };
    const tuple: CheckpointTuple = {
      config: { configurable: { ...configurable, checkpoint_id: record.checkpointId } },
      checkpoint,
      metadata: (metadata ?? (await this.load(record.metadata))) as CheckpointMetadata,
      pendingWrites: await this.pendingWrites(loaded.writes),
    };
    if (record.parentId !== null) {
      tuple.parentConfig = { configurable: { ...configurable, checkpoint_id: record.parentId } };
      if (checkpoint.v < 4) await this.migratePendingSends(checkpoint, record.threadId, record);
    }
    return tuple;
  }

  /** Checkpoints before format 4 kept pending sends as writes of their parent. */
  private async migratePendingSends(
    checkpoint: Checkpoint,
    threadId: string,
    record: LoadedCheckpoint['record'],
  ): Promise<void> {
    const parent = await this.storage.getCheckpoint(threadId, record.namespace, record.parentId!);
    const sends = await this.pendingWrites(
      (parent?.writes ?? []).filter((write) => write.channel === TASKS),
    );
    checkpoint.channel_values[TASKS] = sends.map(([, , value]) => value);
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  private async pendingWrites(
    writes: readonly PendingWriteRecord[],
  ): Promise<CheckpointPendingWrite[]> {
    const ordered = [...writes].sort((a, b) =>
      compareWritesSortKeys(
        writesSortKey(a.taskPath, a.taskId, a.idx),
        writesSortKey(b.taskPath, b.taskId, b.idx),
      ),
    );
    return Promise.all(
      ordered.map(async (w): Promise<CheckpointPendingWrite> => [
        w.taskId,
        w.channel,
        await this.load(w.value),
      ]),
    );
  }

  private async dump(value: unknown): Promise<SerializedValue> {
    const [type, data] = await this.serde.dumpsTyped(value);
    return { type, data };
  }

  private load(value: SerializedValue): Promise<unknown> {
    return this.serde.loadsTyped(value.type, value.data);
  }
}
