import type { DataSource } from 'typeorm';
import type {
  ChannelBlob,
  CheckpointListQuery,
  CheckpointStorage,
  LoadedCheckpoint,
  MessageRange,
  PendingWriteRecord,
} from '../core/checkpoint-storage.interface';
import { pgRequest } from '../pg-errors/postgres-request.error';
import { checkpointTables, type CheckpointTables } from './checkpoint-tables';
import type { MemoryTableNames } from './memory-table-names';
import { preparedQuery } from './postgres-prepared';

/** SQLSTATE of a unique violation: another writer took the message positions first. */
const UNIQUE_VIOLATION = '23505';
/** SQLSTATE of a missing table: the checkpoint tables' migration has not run. */
const UNDEFINED_TABLE = '42P01';

interface CheckpointRow {
  thread_id: string;
  ns: string;
  checkpoint_id: string;
  parent_id: string | null;
  checkpoint_type: string;
  checkpoint: Buffer;
  metadata_type: string;
  metadata: Buffer;
  channel_versions: Array<[string, string]>;
  message_ranges: Array<[number, number]> | null;
  /** `[type, base64]` of each message of `message_ranges`, in order; null without ranges. */
  messages: Array<[string, string]> | null;
  blobs: Array<{ channel: string; version: string; type: string; data: string }>;
  writes: Array<{
    task_id: string;
    task_path: string;
    idx: number;
    channel: string;
    type: string;
    data: string;
  }>;
}

/**
 * The LangGraph checkpoints of a PostgreSQL backend, in the `<table>_lg_*` tables its migrations
 * create: a checkpoint and its changed channel values in one statement, a checkpoint with its
 * values and writes read in one, the message log appended by position (its primary key is the
 * compare-and-swap: a second writer at the same positions fails and retries).
 */
export class PostgresCheckpointStorage implements CheckpointStorage {
  private readonly sql: ReturnType<typeof statements>;

  /**
   * @param opts.preparedStatements false runs every statement unnamed, as the store does behind a
   *   pooler in transaction mode (PgBouncer before 1.21); default true.
   */
  constructor(
    private readonly dataSource: DataSource,
    names: MemoryTableNames,
    private readonly opts: { preparedStatements?: boolean } = {},
  ) {
    this.sql = statements(checkpointTables(names));
  }

  /** One statement: the messages' primary key is the compare-and-swap of the log's end. */
  async putCheckpoint(
    ...[record, blobs, messages]: Parameters<CheckpointStorage['putCheckpoint']>
  ) {
    const appended = messages?.records ?? [];
    try {
      await this.query('put a checkpoint', record.threadId, this.sql.putCheckpoint, [
        record.threadId,
        record.namespace,
        blobs.map((b) => b.channel),
        blobs.map((b) => b.version),
        blobs.map((b) => b.value.type),
        blobs.map((b) => Buffer.from(b.value.data)),
        record.checkpointId,
        record.parentId,
        record.checkpoint.type,
        Buffer.from(record.checkpoint.data),
        record.metadata.type,
        Buffer.from(record.metadata.data),
        JSON.stringify(record.channelVersions),
        appended.map((m) => m.position),
        appended.map((m) => m.chain),
        appended.map((m) => m.value.type),
        appended.map((m) => Buffer.from(m.value.data)),
        record.messageRanges ? JSON.stringify(record.messageRanges) : null,
      ]);
      return true;
    } catch (error) {
      if (codeOf(error) === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  async getCheckpoint(threadId: string, namespace: string, checkpointId?: string) {
    const rows = (await this.query('get a checkpoint', threadId, this.sql.getCheckpoint, [
      threadId,
      namespace,
      checkpointId ?? null,
    ])) as CheckpointRow[];
    return rows[0] ? loadedOf(rows[0]) : null;
  }

  async listCheckpoints(query: CheckpointListQuery) {
    const rows = (await this.query('list checkpoints', query.threadId ?? null, this.sql.list, [
      query.threadId ?? null,
      query.namespace ?? null,
      query.checkpointId ?? null,
      query.before ?? null,
      query.limit ?? null,
    ])) as CheckpointRow[];
    return rows.map(loadedOf);
  }

  async putWrites(...[address, writes]: Parameters<CheckpointStorage['putWrites']>) {
    await this.query('put writes', address.threadId, this.sql.putWrites, [
      address.threadId,
      address.namespace,
      address.checkpointId,
      writes.map((w) => w.taskId),
      writes.map((w) => w.idx),
      writes.map((w) => w.taskPath),
      writes.map((w) => w.channel),
      writes.map((w) => w.value.type),
      writes.map((w) => Buffer.from(w.value.data)),
    ]);
  }

  async messageLogHead(threadId: string) {
    const rows = (await this.query('read a message log', threadId, this.sql.head, [
      threadId,
    ])) as Array<{ position: number; chain: string }>;
    return rows[0] ? { count: rows[0].position, chain: rows[0].chain } : { count: 0, chain: '' };
  }

  async readMessages(threadId: string, ranges: readonly MessageRange[]) {
    const rows = (await this.query('read messages', threadId, this.sql.readMessages, [
      threadId,
      ranges.map(([first]) => first),
      ranges.map(([, last]) => last),
    ])) as Array<{ type: string; data: Buffer }>;
    return rows.map((row) => ({ type: row.type, data: new Uint8Array(row.data) }));
  }

  async threadIds() {
    const rows = (await this.query('list threads', null, this.sql.threadIds, [])) as Array<{
      thread_id: string;
    }>;
    return rows.map((row) => row.thread_id);
  }

  async pruneThread(threadId: string, keepLatest: boolean) {
    const statements = keepLatest ? this.sql.pruneKeepLatest : this.sql.pruneAll;
    await pgRequest('prune checkpoints', threadId, () =>
      this.dataSource.transaction(async (tx) => {
        for (const text of statements) await tx.query(text, [threadId]);
      }),
    );
  }

  /** Without the checkpoint tables (their migration not run yet) there is nothing to delete. */
  async deleteThread(threadId: string) {
    try {
      await this.query('delete a thread', threadId, this.sql.deleteThread, [threadId]);
    } catch (error) {
      if (codeOf(error) !== UNDEFINED_TABLE) throw error;
    }
  }

  private query(operation: string, threadId: string | null, text: string, values: unknown[]) {
    return pgRequest(operation, threadId, () =>
      preparedQuery(this.dataSource, text, values, this.opts.preparedStatements ?? true),
    );
  }
}

function loadedOf(row: CheckpointRow): LoadedCheckpoint {
  const bytes = (data: string) => new Uint8Array(Buffer.from(data, 'base64'));
  return {
    record: {
      threadId: row.thread_id,
      namespace: row.ns,
      checkpointId: row.checkpoint_id,
      parentId: row.parent_id,
      checkpoint: { type: row.checkpoint_type, data: new Uint8Array(row.checkpoint) },
      metadata: { type: row.metadata_type, data: new Uint8Array(row.metadata) },
      channelVersions: row.channel_versions,
      ...(row.message_ranges ? { messageRanges: row.message_ranges } : {}),
    },
    ...(row.messages
      ? { messages: row.messages.map(([type, data]) => ({ type, data: bytes(data) })) }
      : {}),
    blobs: row.blobs.map((b): ChannelBlob => ({
      channel: b.channel,
      version: b.version,
      value: { type: b.type, data: bytes(b.data) },
    })),
    writes: row.writes.map((w): PendingWriteRecord => ({
      taskId: w.task_id,
      taskPath: w.task_path,
      idx: w.idx,
      channel: w.channel,
      value: { type: w.type, data: bytes(w.data) },
    })),
  };
}

function codeOf(error: unknown): unknown {
  const e = error as {
    code?: unknown;
    cause?: { code?: unknown; driverError?: { code?: unknown } };
  };
  return e.cause?.driverError?.code ?? e.cause?.code ?? e.code;
}

function statements(t: CheckpointTables) {
  // A checkpoint with its stored channel values and pending writes, bytes as base64.
  const loaded = `SELECT c.thread_id, c.ns, c.checkpoint_id, c.parent_id, c.checkpoint_type,
      c.checkpoint, c.metadata_type, c.metadata, c.channel_versions, c.message_ranges,
      (SELECT json_agg(json_build_array(m.type, encode(m.data, 'base64')) ORDER BY r.ord, m.position)
        FROM jsonb_array_elements(c.message_ranges) WITH ORDINALITY AS r(range, ord)
        JOIN ${t.messages} m ON m.thread_id = c.thread_id
          AND m.position BETWEEN (r.range->>0)::integer AND (r.range->>1)::integer) AS messages,
      (SELECT coalesce(json_agg(json_build_object('channel', b.channel, 'version', b.version,
          'type', b.type, 'data', encode(b.data, 'base64'))), '[]')
        FROM jsonb_array_elements(c.channel_versions) v
        JOIN ${t.blobs} b ON b.thread_id = c.thread_id AND b.ns = c.ns
          AND b.channel = v->>0 AND b.version = v->>1) AS blobs,
      (SELECT coalesce(json_agg(json_build_object('task_id', w.task_id, 'task_path', w.task_path,
          'idx', w.idx, 'channel', w.channel, 'type', w.type, 'data', encode(w.data, 'base64'))), '[]')
        FROM ${t.writes} w WHERE w.thread_id = c.thread_id AND w.ns = c.ns
          AND w.checkpoint_id = c.checkpoint_id) AS writes
    FROM ${t.checkpoints} c`;
  const deleteFrom = (table: string) => `DELETE FROM ${table} WHERE thread_id = $1`;
  const newest = (alias: string) =>
    `(SELECT max(n.checkpoint_id) FROM ${t.checkpoints} n WHERE n.thread_id = ${alias}.thread_id AND n.ns = ${alias}.ns)`;
  return {
    putCheckpoint: `WITH blobs AS (
        INSERT INTO ${t.blobs} (thread_id, ns, channel, version, type, data)
        SELECT $1, $2, x.channel, x.version, x.type, x.data
          FROM unnest($3::text[], $4::text[], $5::text[], $6::bytea[]) AS x(channel, version, type, data)
        ON CONFLICT DO NOTHING),
      messages AS (
        INSERT INTO ${t.messages} (thread_id, position, chain, type, data)
        SELECT $1, x.position, x.chain, x.type, x.data
          FROM unnest($14::integer[], $15::text[], $16::text[], $17::bytea[])
            AS x(position, chain, type, data))
      INSERT INTO ${t.checkpoints} (thread_id, ns, checkpoint_id, parent_id, checkpoint_type,
        checkpoint, metadata_type, metadata, channel_versions, message_ranges)
      VALUES ($1, $2, $7, $8, $9, $10, $11, $12, $13::jsonb, $18::jsonb)
      ON CONFLICT (thread_id, ns, checkpoint_id) DO UPDATE SET parent_id = excluded.parent_id,
        checkpoint_type = excluded.checkpoint_type, checkpoint = excluded.checkpoint,
        metadata_type = excluded.metadata_type, metadata = excluded.metadata,
        channel_versions = excluded.channel_versions, message_ranges = excluded.message_ranges`,
    getCheckpoint: `${loaded} WHERE c.thread_id = $1 AND c.ns = $2
      AND ($3::text IS NULL OR c.checkpoint_id = $3) ORDER BY c.checkpoint_id DESC LIMIT 1`,
    list: `${loaded} WHERE ($1::text IS NULL OR c.thread_id = $1) AND ($2::text IS NULL OR c.ns = $2)
      AND ($3::text IS NULL OR c.checkpoint_id = $3) AND ($4::text IS NULL OR c.checkpoint_id < $4)
      ORDER BY c.checkpoint_id DESC, c.thread_id, c.ns LIMIT $5::integer`,
    // A special write (negative index) replaces one of the same task and index; others stay first.
    putWrites: `INSERT INTO ${t.writes} (thread_id, ns, checkpoint_id, task_id, idx, task_path,
        channel, type, data)
      SELECT $1, $2, $3, x.task_id, x.idx, x.task_path, x.channel, x.type, x.data
        FROM unnest($4::text[], $5::integer[], $6::text[], $7::text[], $8::text[], $9::bytea[])
          AS x(task_id, idx, task_path, channel, type, data)
      ON CONFLICT (thread_id, ns, checkpoint_id, task_id, idx) DO UPDATE SET
        task_path = excluded.task_path, channel = excluded.channel, type = excluded.type,
        data = excluded.data
      WHERE excluded.idx < 0`,
    head: `SELECT position, chain FROM ${t.messages} WHERE thread_id = $1
      ORDER BY position DESC LIMIT 1`,
    // In the order of the ranges, which need not be the log's (a message edited after others).
    readMessages: `SELECT m.type, m.data
      FROM unnest($2::integer[], $3::integer[]) WITH ORDINALITY AS r(first, last, ord)
      JOIN ${t.messages} m ON m.thread_id = $1 AND m.position BETWEEN r.first AND r.last
      ORDER BY r.ord, m.position`,
    threadIds: `SELECT thread_id FROM ${t.checkpoints} UNION SELECT thread_id FROM ${t.messages}`,
    pruneKeepLatest: [
      `DELETE FROM ${t.writes} w WHERE w.thread_id = $1 AND w.checkpoint_id <> ${newest('w')}`,
      `DELETE FROM ${t.blobs} b WHERE b.thread_id = $1 AND NOT EXISTS (
        SELECT 1 FROM ${t.checkpoints} c, jsonb_array_elements(c.channel_versions) v
        WHERE c.thread_id = b.thread_id AND c.ns = b.ns AND c.checkpoint_id = ${newest('c')}
          AND v->>0 = b.channel AND v->>1 = b.version)`,
      `DELETE FROM ${t.checkpoints} c WHERE c.thread_id = $1 AND c.checkpoint_id <> ${newest('c')}`,
    ],
    pruneAll: [t.checkpoints, t.blobs, t.writes].map(deleteFrom),
    // One statement, so one round trip for every session a backend deletes.
    deleteThread: `WITH c AS (${deleteFrom(t.checkpoints)}), b AS (${deleteFrom(t.blobs)}),
      w AS (${deleteFrom(t.writes)}) ${deleteFrom(t.messages)}`,
  };
}
