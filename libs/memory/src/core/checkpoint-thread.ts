import type {
  ChannelBlob,
  CheckpointListQuery,
  CheckpointRecord,
  LoadedCheckpoint,
  MessageAppend,
  MessageLogHead,
  MessageRange,
  PendingWriteRecord,
  SerializedValue,
  ThreadMessageRecord,
} from './checkpoint-storage.interface';

/** A checkpoint of a {@link CheckpointThread}, without the keys it is filed under. */
type StoredCheckpoint = Omit<CheckpointRecord, 'threadId' | 'namespace' | 'checkpointId'>;

/** What one namespace of a thread holds. */
interface NamespaceRecords {
  checkpoints: Map<string, StoredCheckpoint>;
  /** By `channel \0 version`. */
  blobs: Map<string, ChannelBlob>;
  /** By checkpoint id, then `taskId \0 idx`. */
  writes: Map<string, Map<string, PendingWriteRecord>>;
}

/** A {@link CheckpointThread} as plain JSON (bytes as base64), for a file. */
export interface CheckpointThreadJson {
  namespaces: Array<{
    namespace: string;
    checkpoints: Array<{
      id: string;
      parentId: string | null;
      checkpoint: SerializedValueJson;
      metadata: SerializedValueJson;
      channelVersions: Array<[string, string]>;
      messageRanges?: Array<[number, number]>;
    }>;
    blobs: Array<{ channel: string; version: string; value: SerializedValueJson }>;
    writes: Array<{
      checkpointId: string;
      taskId: string;
      taskPath: string;
      idx: number;
      channel: string;
      value: SerializedValueJson;
    }>;
  }>;
  messages: Array<{ chain: string; value: SerializedValueJson }>;
}

const blobKey = (channel: string, version: string) => `${channel}\u0000${version}`;
const writeKey = (taskId: string, idx: number) => `${taskId}\u0000${idx}`;
/** A serialized value as JSON: `[type, base64 of its bytes]`. */
export type SerializedValueJson = [type: string, base64: string];

/** A serialized value as JSON (for a file or a key's value). */
export function encodeSerializedValue(value: SerializedValue): SerializedValueJson {
  return [value.type, Buffer.from(value.data).toString('base64')];
}

/** Reads back what {@link encodeSerializedValue} wrote. */
export function decodeSerializedValue([type, data]: SerializedValueJson): SerializedValue {
  return { type, data: new Uint8Array(Buffer.from(data, 'base64')) };
}

const encode = encodeSerializedValue;
const decode = decodeSerializedValue;

/**
 * Everything the checkpoint saver keeps of one thread, in memory: what the in-process store holds
 * per thread and what the JSON-file store reads from and writes to one file per thread. Implements
 * the per-thread half of `CheckpointStorage` with its rules (blobs kept once, special writes
 * replaced, regular writes kept first, the message log append-only).
 */
export class CheckpointThread {
  private readonly namespaces = new Map<string, NamespaceRecords>();
  private readonly messages: ThreadMessageRecord[] = [];

  constructor(readonly threadId: string) {}

  /** Whether the thread holds nothing (so its file or entry can go). */
  isEmpty(): boolean {
    return this.namespaces.size === 0 && this.messages.length === 0;
  }

  putCheckpoint(
    record: CheckpointRecord,
    blobs: readonly ChannelBlob[],
    messages?: MessageAppend,
  ): boolean {
    if (messages && messages.records.length > 0) {
      if (this.messages.length !== messages.expectedCount) return false;
      this.messages.push(...messages.records);
    }
    const ns = this.namespace(record.namespace, true);
    const { threadId: _t, namespace: _n, checkpointId, ...stored } = record;
    ns.checkpoints.set(checkpointId, stored);
    for (const blob of blobs) {
      const key = blobKey(blob.channel, blob.version);
      if (!ns.blobs.has(key)) ns.blobs.set(key, blob);
    }
    return true;
  }

  getCheckpoint(namespace: string, checkpointId?: string): LoadedCheckpoint | null {
    const ns = this.namespace(namespace, false);
    if (!ns) return null;
    const id = checkpointId ?? newestId(ns.checkpoints.keys());
    const stored = id === undefined ? undefined : ns.checkpoints.get(id);
    return stored ? this.loaded(namespace, id!, stored) : null;
  }

  listCheckpoints(query: CheckpointListQuery): LoadedCheckpoint[] {
    const found: LoadedCheckpoint[] = [];
    for (const [namespace, ns] of this.namespaces) {
      if (query.namespace !== undefined && namespace !== query.namespace) continue;
      for (const [id, stored] of ns.checkpoints) {
        if (query.checkpointId !== undefined && id !== query.checkpointId) continue;
        if (query.before !== undefined && id >= query.before) continue;
        found.push(this.loaded(namespace, id, stored));
      }
    }
    found.sort(newestFirst);
    return query.limit === undefined ? found : found.slice(0, query.limit);
  }

  putWrites(namespace: string, checkpointId: string, writes: readonly PendingWriteRecord[]): void {
    const ns = this.namespace(namespace, true);
    let byTask = ns.writes.get(checkpointId);
    if (!byTask) ns.writes.set(checkpointId, (byTask = new Map()));
    for (const write of writes) {
      const key = writeKey(write.taskId, write.idx);
      if (write.idx >= 0 && byTask.has(key)) continue;
      byTask.set(key, write);
    }
  }

  messageLogHead(): MessageLogHead {
    const last = this.messages[this.messages.length - 1];
    return { count: this.messages.length, chain: last?.chain ?? '' };
  }

  readMessages(ranges: readonly MessageRange[]): SerializedValue[] {
    return ranges.flatMap(([first, last]) =>
      this.messages.slice(first - 1, last).map((message) => message.value),
    );
  }

  pruneThread(keepLatest: boolean): void {
    for (const [namespace, ns] of [...this.namespaces]) {
      const newest = keepLatest ? newestId(ns.checkpoints.keys()) : undefined;
      const kept = newest === undefined ? undefined : ns.checkpoints.get(newest);
      if (!kept) {
        this.namespaces.delete(namespace);
        continue;
      }
      ns.checkpoints = new Map([[newest!, kept]]);
      const needed = new Set(
        kept.channelVersions.map(([channel, version]) => blobKey(channel, version)),
      );
      for (const key of [...ns.blobs.keys()]) if (!needed.has(key)) ns.blobs.delete(key);
      for (const id of [...ns.writes.keys()]) if (id !== newest) ns.writes.delete(id);
    }
  }

  toJSON(): CheckpointThreadJson {
    return {
      namespaces: [...this.namespaces].map(([namespace, ns]) => ({
        namespace,
        checkpoints: [...ns.checkpoints].map(([id, stored]) => ({
          id,
          parentId: stored.parentId,
          checkpoint: encode(stored.checkpoint),
          metadata: encode(stored.metadata),
          channelVersions: stored.channelVersions.map(([c, v]) => [c, v]),
          ...(stored.messageRanges
            ? { messageRanges: stored.messageRanges.map(([f, l]) => [f, l] as [number, number]) }
            : {}),
        })),
        blobs: [...ns.blobs.values()].map((blob) => ({
          channel: blob.channel,
          version: blob.version,
          value: encode(blob.value),
        })),
        writes: [...ns.writes].flatMap(([checkpointId, byTask]) =>
          [...byTask.values()].map((write) => ({
            checkpointId,
            ...write,
            value: encode(write.value),
          })),
        ),
      })),
      messages: this.messages.map((message) => ({
        chain: message.chain,
        value: encode(message.value),
      })),
    };
  }

  /** Reads back what {@link toJSON} wrote. */
  static fromJSON(threadId: string, json: CheckpointThreadJson): CheckpointThread {
    const thread = new CheckpointThread(threadId);
    for (const stored of json.namespaces) {
      const ns = thread.namespace(stored.namespace, true);
      for (const {
        id,
        parentId,
        checkpoint,
        metadata,
        channelVersions,
        messageRanges,
      } of stored.checkpoints) {
        ns.checkpoints.set(id, {
          parentId,
          checkpoint: decode(checkpoint),
          metadata: decode(metadata),
          channelVersions,
          ...(messageRanges ? { messageRanges } : {}),
        });
      }
      for (const { channel, version, value } of stored.blobs) {
        ns.blobs.set(blobKey(channel, version), { channel, version, value: decode(value) });
      }
      for (const { checkpointId, value, ...write } of stored.writes) {
        thread.putWrites(stored.namespace, checkpointId, [{ ...write, value: decode(value) }]);
      }
    }
    json.messages.forEach(({ chain, value }, index) =>
      thread.messages.push({ position: index + 1, chain, value: decode(value) }),
    );
    return thread;
  }

  private namespace(namespace: string, create: true): NamespaceRecords;
  private namespace(namespace: string, create: false): NamespaceRecords | undefined;
  private namespace(namespace: string, create: boolean): NamespaceRecords | undefined {
    let ns = this.namespaces.get(namespace);
    if (!ns && create) {
      ns = { checkpoints: new Map(), blobs: new Map(), writes: new Map() };
      this.namespaces.set(namespace, ns);
    }
    return ns;
  }

  private loaded(namespace: string, id: string, stored: StoredCheckpoint): LoadedCheckpoint {
    const ns = this.namespace(namespace, true);
    return {
      record: { threadId: this.threadId, namespace, checkpointId: id, ...stored },
      blobs: stored.channelVersions.flatMap(
        ([channel, version]) => ns.blobs.get(blobKey(channel, version)) ?? [],
      ),
      writes: [...(ns.writes.get(id)?.values() ?? [])],
      ...(stored.messageRanges ? { messages: this.readMessages(stored.messageRanges) } : {}),
    };
  }
}

function newestId(ids: Iterable<string>): string | undefined {
  let newest: string | undefined;
  for (const id of ids) if (newest === undefined || id > newest) newest = id;
  return newest;
}

/** Sorts loaded checkpoints newest (highest id) first. */
export function newestFirst(a: LoadedCheckpoint, b: LoadedCheckpoint): number {
  return a.record.checkpointId < b.record.checkpointId ? 1 : -1;
}
