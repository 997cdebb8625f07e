import type { KV } from 'nats';
import type {
  ChannelBlob,
  CheckpointListQuery,
  CheckpointRecord,
  CheckpointStorage,
  LoadedCheckpoint,
  MessageAppend,
  MessageLogHead,
  MessageRange,
  PendingWriteRecord,
} from '../core/checkpoint-storage.interface';
import {
  decodeSerializedValue,
  encodeSerializedValue,
  type SerializedValueJson,
} from '../core/checkpoint-thread';
import { DEFAULT_MAX_PAYLOAD_BYTES } from './nats.defaults';
import { isWrongLastSequence, natsRequest } from './nats-request.error';

/** Room left in each value for the headers of a write. */
const HEADER_ROOM_BYTES = 1024;
/** The last token of a key holding part of a value too large for one. */
const PART_TOKEN = 'part';

type Encoded = SerializedValueJson;
interface CheckpointValue {
  parentId: string | null;
  checkpoint: Encoded;
  metadata: Encoded;
  channelVersions: Array<[string, string]>;
  messageRanges?: Array<[number, number]>;
}

/** A string as one key token: `x` and its UTF-8 as base64url (the empty string is `x`). */
const token = (text: string) => `x${Buffer.from(text, 'utf8').toString('base64url')}`;
const untoken = (text: string) => Buffer.from(text.slice(1), 'base64url').toString('utf8');
const encode = encodeSerializedValue;
const decode = decodeSerializedValue;

/**
 * The LangGraph checkpoints of a NATS backend, as keys of its session bucket under `_lg.` (no
 * session id starts with `_`, so session lists never show them), one token per thread:
 * `_lg.<thread>.c.<ns>.<id>` a checkpoint, `.l.<ns>` the newest checkpoint's id, `.b.<ns>.<channel>.<version>`
 * a channel value, `.w.<ns>.<id>.<task>.<idx>` a pending write, `.m.<position>` a message and `.h`
 * the end of the message log. A value larger than the server takes is split over `.part<n>` keys.
 * The log's end and the newest id are compare-and-swap writes on the key's revision; a message
 * position is claimed on the log's end before it is written, so two writers never write one
 * position (a writer that dies in between leaves a position no checkpoint refers to).
 */
export class NatsCheckpointStorage implements CheckpointStorage {
  private readonly maxValueBytes: number;

  constructor(
    private readonly kv: KV,
    maxPayloadBytes: number = DEFAULT_MAX_PAYLOAD_BYTES,
  ) {
    this.maxValueBytes = Math.max(256, maxPayloadBytes - HEADER_ROOM_BYTES);
  }

  /** The messages' positions are claimed first (on the log's end); a lost claim stores nothing. */
  async putCheckpoint(
    record: CheckpointRecord,
    blobs: readonly ChannelBlob[],
    messages?: MessageAppend,
  ) {
    const t = `_lg.${token(record.threadId)}`;
    const ns = token(record.namespace);
    if (messages && messages.records.length > 0) {
      if (!(await this.appendMessages(record.threadId, messages))) return false;
    }
    await Promise.all(
      blobs.map((blob) =>
        this.putValue(
          `${t}.b.${ns}.${token(blob.channel)}.${token(blob.version)}`,
          encode(blob.value),
        ),
      ),
    );
    const value: CheckpointValue = {
      parentId: record.parentId,
      checkpoint: encode(record.checkpoint),
      metadata: encode(record.metadata),
      channelVersions: record.channelVersions.map(([c, v]) => [c, v]),
      ...(record.messageRanges
        ? { messageRanges: record.messageRanges.map(([f, l]) => [f, l] as [number, number]) }
        : {}),
    };
    await this.putValue(`${t}.c.${ns}.${token(record.checkpointId)}`, value);
    await this.raiseNewest(`${t}.l.${ns}`, record.checkpointId);
    return true;
  }

  async getCheckpoint(threadId: string, namespace: string, checkpointId?: string) {
    const t = `_lg.${token(threadId)}`;
    const ns = token(namespace);
    const id = checkpointId ?? (await this.getValue<string>(`${t}.l.${ns}`));
    if (id === null) return null;
    const value = await this.getValue<CheckpointValue>(`${t}.c.${ns}.${token(id)}`);
    if (!value) return null;
    const blobs = await Promise.all(
      value.channelVersions.map(async ([channel, version]) => {
        const stored = await this.getValue<Encoded>(
          `${t}.b.${ns}.${token(channel)}.${token(version)}`,
        );
        return stored ? [{ channel, version, value: decode(stored) }] : [];
      }),
    );
    const messages = value.messageRanges
      ? this.readMessages(threadId, value.messageRanges)
      : undefined;
    const writes = await Promise.all(
      (await this.keys(`${t}.w.${ns}.${token(id)}.*.*`)).map(async (key) => {
        const [, , , , , task, idx] = key.split('.');
        const stored = await this.getValue<[string, string, Encoded]>(key);
        return stored
          ? [
              {
                taskId: untoken(task!),
                idx: Number(untoken(idx!)),
                taskPath: stored[0],
                channel: stored[1],
                value: decode(stored[2]),
              },
            ]
          : [];
      }),
    );
    return {
      record: {
        threadId,
        namespace,
        checkpointId: id,
        parentId: value.parentId,
        checkpoint: decode(value.checkpoint),
        metadata: decode(value.metadata),
        channelVersions: value.channelVersions,
        ...(value.messageRanges ? { messageRanges: value.messageRanges } : {}),
      },
      ...(messages ? { messages: await messages } : {}),
      blobs: blobs.flat(),
      writes: writes.flat() as PendingWriteRecord[],
    } satisfies LoadedCheckpoint;
  }

  async listCheckpoints(query: CheckpointListQuery) {
    const filter = [
      '_lg',
      query.threadId === undefined ? '*' : token(query.threadId),
      'c',
      query.namespace === undefined ? '*' : token(query.namespace),
      query.checkpointId === undefined ? '*' : token(query.checkpointId),
    ].join('.');
    const found = (await this.keys(filter))
      .map((key) => key.split('.'))
      .map(([, t, , ns, id]) => ({
        threadId: untoken(t!),
        namespace: untoken(ns!),
        id: untoken(id!),
      }))
      .filter((c) => query.before === undefined || c.id < query.before)
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .slice(0, query.limit);
    const loaded = await Promise.all(
      found.map((c) => this.getCheckpoint(c.threadId, c.namespace, c.id)),
    );
    return loaded.filter((c) => c !== null);
  }

  async putWrites(...[address, writes]: Parameters<CheckpointStorage['putWrites']>) {
    const prefix = `_lg.${token(address.threadId)}.w.${token(address.namespace)}.${token(address.checkpointId)}`;
    await Promise.all(
      writes.map((write) => {
        const key = `${prefix}.${token(write.taskId)}.${token(String(write.idx))}`;
        const value = [write.taskPath, write.channel, encode(write.value)];
        // A special write replaces; a regular one keeps what the task wrote first.
        return write.idx < 0 ? this.putValue(key, value) : this.putValue(key, value, true);
      }),
    );
  }

  async messageLogHead(threadId: string) {
    return (
      (await this.getValue<MessageLogHead>(`_lg.${token(threadId)}.h`)) ?? { count: 0, chain: '' }
    );
  }

  /** Claims the positions on the log's end (compare-and-swap), then writes the messages. */
  private async appendMessages(
    threadId: string,
    { expectedCount: expected, records: messages }: MessageAppend,
  ): Promise<boolean> {
    const t = `_lg.${token(threadId)}`;
    const entry = await natsRequest('read a message log', threadId, () => this.kv.get(`${t}.h`));
    const live = entry?.operation === 'PUT' ? entry : null;
    const head = live ? (live.json() as MessageLogHead) : { count: 0, chain: '' };
    if (head.count !== expected) return false;
    const next: MessageLogHead = {
      count: expected + messages.length,
      chain: messages.at(-1)!.chain,
    };
    const claimed = await this.swap(`${t}.h`, JSON.stringify(next), entry?.revision ?? 0);
    if (!claimed) return false;
    await Promise.all(
      messages.map((m) => this.putValue(`${t}.m.${m.position}`, [m.chain, encode(m.value)])),
    );
    return true;
  }

  async readMessages(threadId: string, ranges: readonly MessageRange[]) {
    const t = `_lg.${token(threadId)}`;
    const positions = ranges.flatMap(([first, last]) =>
      Array.from({ length: last - first + 1 }, (_, i) => first + i),
    );
    const values = await Promise.all(
      positions.map((p) => this.getValue<[string, Encoded]>(`${t}.m.${p}`)),
    );
    return values.flatMap((value) => (value ? [decode(value[1])] : []));
  }

  async threadIds() {
    const keys = [...(await this.keys('_lg.*.c.>')), ...(await this.keys('_lg.*.h'))];
    return [...new Set(keys.map((key) => untoken(key.split('.')[1]!)))];
  }

  async pruneThread(threadId: string, keepLatest: boolean) {
    const t = `_lg.${token(threadId)}`;
    const kept = new Map<string, LoadedCheckpoint>();
    if (keepLatest) {
      for (const ns of new Set((await this.keys(`${t}.l.*`)).map((k) => k.split('.')[3]!))) {
        const latest = await this.getCheckpoint(threadId, untoken(ns));
        if (latest) kept.set(ns, latest);
      }
    }
    const doomed = (await this.keys(`${t}.>`, true)).filter((key) => {
      const [, , kind, ns, a, b] = key.split('.');
      const keep = kept.get(ns!);
      if (kind === 'c' || kind === 'w') return a !== token(keep?.record.checkpointId ?? '\u0000');
      if (kind === 'b') {
        return !keep?.record.channelVersions.some(([c, v]) => token(c) === a && token(v) === b);
      }
      return kind === 'l' && !keep;
    });
    await this.purge(doomed);
  }

  async deleteThread(threadId: string) {
    await this.purge(await this.keys(`_lg.${token(threadId)}.>`, true));
  }

  /** Sets `key` to the newest of its id and `id` (checkpoint ids sort by time). */
  private async raiseNewest(key: string, id: string): Promise<void> {
    for (;;) {
      const entry = await natsRequest('read a checkpoint', null, () => this.kv.get(key));
      const current = entry?.operation === 'PUT' ? (entry.json() as string) : null;
      if (current !== null && current >= id) return;
      if (await this.swap(key, JSON.stringify(id), entry?.revision ?? 0)) return;
    }
  }

  /** A compare-and-swap write on `revision` (0: the key must not exist); false when it lost. */
  private async swap(key: string, text: string, revision: number): Promise<boolean> {
    try {
      await natsRequest('write a checkpoint', null, () =>
        revision === 0 ? this.kv.create(key, text) : this.kv.update(key, text, revision),
      );
      return true;
    } catch (error) {
      if (isWrongLastSequence(error)) return false;
      throw error;
    }
  }

  /** Writes a JSON value, over `.part<n>` keys when too large for one; `ifAbsent` keeps an existing one. */
  private async putValue(key: string, value: unknown, ifAbsent = false): Promise<void> {
    const text = JSON.stringify(value);
    const bytes = Buffer.byteLength(text);
    const parts = Math.ceil(bytes / this.maxValueBytes);
    if (parts > 1) {
      const buffer = Buffer.from(text);
      await Promise.all(
        Array.from({ length: parts }, (_, i) =>
          natsRequest('write a checkpoint', null, () =>
            this.kv.put(
              `${key}.${PART_TOKEN}${i}`,
              buffer.subarray(i * this.maxValueBytes, (i + 1) * this.maxValueBytes),
            ),
          ),
        ),
      );
    }
    const stored = parts > 1 ? JSON.stringify({ parts }) : text;
    if (ifAbsent) await this.swap(key, stored, 0);
    else await natsRequest('write a checkpoint', null, () => this.kv.put(key, stored));
  }

  private async getValue<T>(key: string): Promise<T | null> {
    const entry = await natsRequest('read a checkpoint', null, () => this.kv.get(key));
    if (entry?.operation !== 'PUT') return null;
    const value = entry.json() as T | { parts: number };
    if (
      value === null ||
      typeof value !== 'object' ||
      Array.isArray(value) ||
      !('parts' in value)
    ) {
      return value as T;
    }
    const parts = await Promise.all(
      Array.from({ length: value.parts }, (_, i) =>
        natsRequest('read a checkpoint', null, () => this.kv.get(`${key}.${PART_TOKEN}${i}`)),
      ),
    );
    return JSON.parse(Buffer.concat(parts.map((p) => Buffer.from(p!.value))).toString('utf8')) as T;
  }

  /** The keys matching `filter`; with `withParts`, the `.part<n>` keys too. */
  private async keys(filter: string, withParts = false): Promise<string[]> {
    return natsRequest('list checkpoints', null, async () => {
      const found: string[] = [];
      for await (const key of await this.kv.keys(filter)) {
        if (withParts || !key.split('.').at(-1)!.startsWith(PART_TOKEN)) found.push(key);
      }
      return found;
    });
  }

  private async purge(keys: readonly string[]): Promise<void> {
    await Promise.all(
      keys.map((key) => natsRequest('delete a checkpoint', null, () => this.kv.purge(key))),
    );
  }
}
