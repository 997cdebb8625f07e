import type { DataSource } from 'typeorm';
import { throwIfAborted } from '../core/abort';
import {
  IdempotencyKeyReusedError,
  SessionChangedError,
  SnapshotsUnsupportedError,
} from '../core/errors';
import type { PruneCoveredOptions } from '../core/covered-log-pruning';
import { sameSessionState, sessionInfo } from '../core/session-info';
import {
  storeContext,
  summaryPolicyOf,
  type LegacySummaryPolicy,
  type SummarizationStoreOptions,
  type SummaryTarget,
} from '../core/legacy-summarization';
import type {
  CallOptions,
  Cursor,
  EntriesQuery,
  Entry,
  SaveOptions,
  SaveResult,
  SessionStore,
  Snapshot,
  SnapshotState,
  StoredSnapshot,
} from '../core/memory.interface';
import { EMPTY_SAVE_RESULT, assertIdempotencyKey, batchDigest } from '../core/idempotency';
import { batchSavedAt } from '../core/saved-at';
import type { Message } from '../core/message';
import { validateMessages } from '../core/message.codec';
import { assertMetaEntry } from '../core/session-meta';
import { assertSessionId } from '../core/session-id';
import { assertSnapshotSwap, assertStorableSummary, storedSnapshot } from '../core/snapshot';
import { DRAW_CONTEXT } from '../core/context-drawing';
import { stillCovers, type SnapshotWrite } from '../core/snapshot-write';
import { ensureMemorySchema } from './memory-schema';
import { keyedBatchDigest } from './batch-digest';
import { saveGroupsOf, type GroupedBatch } from './save-groups';
import { SessionSaves } from './session-saves';
import { OWN_DELETE, statementsFor, type SessionStatements } from './session-statements';
import { preparedQuery } from './postgres-prepared';
import { memoryTableNames, type MemoryTableNames } from './memory-table-names';
import { pgRequest } from '../pg-errors/postgres-request.error';
import { decodeContextRows, messageEntry, type ContextRow, type MessageRow } from './postgres-rows';

/** Options of `PostgresMemory.open` (one session on a `DataSource`). */
export interface PostgresMemoryOptions extends SummarizationStoreOptions {
  /**
   * The messages table, `name` or `schema.name` (default `conversation_memory`); the snapshots and
   * sessions tables are `<name>_snapshots` and `<name>_sessions` next to it.
   */
  table?: string;
  /** Run the memory migrations (creating the schema of a prefix) on open when missing. Default true. */
  ensureSchema?: boolean;
  /** Delete the messages a snapshot covers, in the snapshot's transaction. Default false. */
  pruneCompacted?: boolean;
  /**
   * Run the hot-path statements (save, retrieve, metadata) as named prepared statements. Default
   * true. Set false behind a pooler that does not keep named statements between transactions
   * (PgBouncer in transaction mode before 1.21, or without `max_prepared_statements`).
   */
  preparedStatements?: boolean;
  /**
   * Early lock release (default true): a save that had to wait for the session's lock (another
   * writer held it) commits without waiting for its WAL flush, so the lock passes on at once,
   * then waits for a flush in a second transaction of the same call (the save procedure) before
   * it resolves: writers of one session share flushes instead of taking one each in turn, one
   * after another. A save that finds the lock free commits as usual. The cost: a contended
   * message can be seen by readers up to one flush before it is durable, and a server crash in
   * that window loses it (its save was never acknowledged). Set false to flush under the lock,
   * or where `pg_logical_emit_message` (the flush) is not allowed.
   */
  earlyLockRelease?: boolean;
}

/**
 * A session stored in PostgreSQL through a TypeORM `DataSource` on `pg`: one row per message
 * (`seq bigserial` is the cursor), the latest snapshot in `<table>_snapshots`, counters and
 * metadata in `<table>_sessions`. Several processes can share a session.
 *
 * Every write of messages or snapshot first takes the session's transaction-scoped advisory lock
 * (`pg_advisory_xact_lock` on a hash of table and session), so writers of one session are
 * serialised across processes until commit and a batch's seqs are contiguous (and committed in
 * seq order). A save first tries one plain statement that takes the lock only when it is free
 * (a lone writer: lock, key, counters and rows, a normal commit); when another writer holds it,
 * the save is one call of the save procedure (`<table>_save_group`, made by the migrations), which
 * waits for the lock, runs the same statement, and by default then commits without waiting for
 * the WAL flush under it and waits for the flush afterwards in the same call (`earlyLockRelease`),
 * so the writers share flushes. An idempotency key is checked and recorded in `<table>_keys` by
 * that statement (a retry stores nothing and answers as the first save did; the key with other
 * messages is `IdempotencyKeyReusedError`).
 * Saves of one session that wait in one process are combined into one call (group commit), each
 * batch still contiguous and in order. A save updates the sessions row's counters and
 * `updated_at` itself; statement triggers on the messages table do the same for rows another writer
 * (Phero, plain SQL) inserts or deletes. `saveSnapshot` is a compare-and-swap decided in SQL
 * under that lock. A message row that does not decode raises
 * `CorruptSessionError` naming the session and seq and is left as it is. Database errors are
 * wrapped: `PostgresRequestError` (a `BackendUnavailableError`) when the server is unreachable or
 * timed out, `PostgresQueryError` (a `BackendError`) when it refused the statement; the driver's
 * error is their `cause`.
 */
export class PostgresMemory implements SessionStore {
  private readonly sql: SessionStatements;
  private readonly saves: SessionSaves;
  private readonly summaryPolicy: LegacySummaryPolicy | undefined;

  private constructor(
    readonly dataSource: DataSource,
    readonly sessionId: string,
    readonly tables: MemoryTableNames,
    private readonly opts: PostgresMemoryOptions,
  ) {
    this.sql = statementsFor(tables);
    this.saves = new SessionSaves({
      dataSource,
      sessionId,
      tables,
      sql: this.sql,
      query: (text, values) => this.query(text, values),
      earlyLockRelease: opts.earlyLockRelease ?? true,
    });
    this.summaryPolicy = summaryPolicyOf(opts);
  }

  /**
   * A memory over session `sessionId`. With `ensureSchema` (default) it first runs the pending
   * migrations; otherwise it reads nothing, so a corrupt session can still be cleared.
   * @throws InvalidSessionIdError or RangeError (bad `table`, bad `summarization`) before any SQL.
   */
  static async open(
    dataSource: DataSource,
    sessionId: string,
    opts: PostgresMemoryOptions = {},
  ): Promise<PostgresMemory> {
    assertSessionId(sessionId);
    const tables = memoryTableNames(opts.table);
    const memory = new PostgresMemory(dataSource, sessionId, tables, opts);
    if (opts.ensureSchema ?? true) {
      await pgRequest('run the migrations', sessionId, () =>
        ensureMemorySchema(dataSource, opts.table),
      );
    }
    return memory;
  }

  /** One hot-path statement, prepared unless `preparedStatements` is false. */
  private query(text: string, values: unknown[]): Promise<unknown[]> {
    return preparedQuery(this.dataSource, text, values, this.opts.preparedStatements ?? true);
  }

  async retrieve(_query?: string, opts?: CallOptions): Promise<Message[]> {
    const { snapshot, tail } = await this.loadSnapshot(opts);
    return this[DRAW_CONTEXT](
      snapshot,
      tail.map((entry) => entry.message),
    );
  }

  /** What `retrieve` returns for a snapshot and the messages after it (see `DRAW_CONTEXT`). */
  [DRAW_CONTEXT](snapshot: Snapshot | null, messages: readonly Message[]): Message[] {
    return storeContext(this.summaryPolicy, snapshot, messages);
  }

  /**
   * One statement, combined with the saves of the session waiting in this process (group
   * commit), keyed or not: a key is looked up and recorded in `<table>_keys` by the statement
   * that saves (see `saveStatementSql`), so a retry stores nothing and answers with the first
   * save's cursors, and the key with other messages is `IdempotencyKeyReusedError`. With a
   * `savedAt`, a transaction that also sets the stored rows' `created_at` to it.
   */
  async save(messages: readonly Message[], opts?: SaveOptions): Promise<SaveResult> {
    const batch = validateMessages(messages);
    const key = opts?.idempotencyKey;
    if (key !== undefined) assertIdempotencyKey(key);
    // Checked here; recorded only when given (the rows' default is the transaction's time).
    const savedAt = opts?.savedAt === undefined ? undefined : batchSavedAt(opts, () => new Date());
    throwIfAborted(opts);
    if (batch.length === 0)
      return key === undefined ? EMPTY_SAVE_RESULT : this.saves.lookUpKey(key);
    const texts = batch.map((message) => JSON.stringify(message));
    const grouped: GroupedBatch =
      key === undefined
        ? { messages: texts }
        : {
            messages: texts,
            key,
            digest: keyedBatchDigest(batch, texts),
            legacyDigest: () => batchDigest(batch),
          };
    const outcome = await pgRequest('save', this.sessionId, () =>
      savedAt === undefined
        ? saveGroupsOf(this.dataSource).save(
            this.tables.lockKey + this.sessionId,
            grouped,
            (batches) => this.saves.saveGroup(batches),
            opts?.signal,
          )
        : this.saves.saveAt(grouped, savedAt),
    );
    if (outcome.state === 'refused') throw new IdempotencyKeyReusedError(this.sessionId, key!);
    const result: SaveResult = {
      first: outcome.first,
      last: outcome.last,
      replayed: outcome.state === 'replayed',
    };
    await this.summaryPolicy?.afterSave(result, this.summaryTarget(), opts);
    return result;
  }

  /** Deletes the session's messages, snapshot and row (also corrupt ones): it is then as if new. */
  async clear(opts?: CallOptions): Promise<void> {
    throwIfAborted(opts);
    await pgRequest('clear', this.sessionId, () =>
      this.dataSource.transaction(async (tx) => {
        await tx.query(this.sql.lockSession, [this.sessionId]);
        await tx.query(this.sql.clear, [this.sessionId]);
      }),
    );
  }

  async loadSnapshot(opts?: CallOptions): Promise<SnapshotState> {
    throwIfAborted(opts);
    const rows = (await pgRequest('read', this.sessionId, () =>
      this.query(this.sql.context, [this.sessionId]),
    )) as ContextRow[];
    return decodeContextRows(this.sessionId, rows);
  }

  async entries(query: EntriesQuery = {}, opts?: CallOptions): Promise<Entry[]> {
    throwIfAborted(opts);
    const rows = (await pgRequest('read entries', this.sessionId, () =>
      this.query(this.sql.entriesPage, [this.sessionId, query.after ?? 0, query.limit ?? null]),
    )) as MessageRow[];
    return rows.map((row) => messageEntry(this.sessionId, row));
  }

  /** @throws SnapshotsUnsupportedError when the store has the deprecated `summarization` option. */
  async saveSnapshot(
    snapshot: Snapshot,
    upTo: Cursor,
    prev: StoredSnapshot | null,
    opts?: CallOptions,
  ): Promise<StoredSnapshot> {
    if (this.summaryPolicy) throw new SnapshotsUnsupportedError(this.sessionId);
    const write = { snapshot, upTo, prev, prune: this.opts.pruneCompacted ?? false };
    return (await this.writeSnapshot(write, opts))!;
  }

  /**
   * The one snapshot write: `saveSnapshot`'s and the summary policy's.
   * @returns null when `write.covers` no longer matched (nothing written).
   */
  private async writeSnapshot(
    write: SnapshotWrite,
    opts?: CallOptions,
  ): Promise<StoredSnapshot | null> {
    assertStorableSummary(write.snapshot.summary);
    const pinned = validateMessages(write.snapshot.pinned ?? [], 'snapshot.pinned');
    throwIfAborted(opts);
    return pgRequest('save a snapshot', this.sessionId, () => this.swapSnapshot(write, pinned));
  }

  /** What the summary policy reads and writes through. */
  private summaryTarget(): SummaryTarget {
    return {
      loadSnapshot: (opts) => this.loadSnapshot(opts),
      writeSnapshot: (write, opts) => this.writeSnapshot(write, opts),
    };
  }

  private swapSnapshot(write: SnapshotWrite, pinned: Message[]): Promise<StoredSnapshot | null> {
    const { snapshot, upTo, prev, prune, covers } = write;
    return this.dataSource.transaction(async (tx) => {
      await tx.query(this.sql.lockSession, [this.sessionId]);
      // Read in a statement of its own, after the lock: its snapshot then sees the last writer's commit.
      const [state] = (await tx.query(this.sql.snapshotState, [this.sessionId])) as [
        { upto_seq: string | null; last_seq: string | null },
      ];
      const latest = state.upto_seq === null ? null : Number(state.upto_seq);
      assertSnapshotSwap(
        this.sessionId,
        latest === null ? null : { summary: '', upTo: latest, createdAt: '' },
        prev,
        upTo,
        state.last_seq === null ? null : Number(state.last_seq),
      );
      if (covers) {
        const rows = (await tx.query(this.sql.entriesPage, [
          this.sessionId,
          latest ?? 0,
          covers.length + 1,
        ])) as Omit<MessageRow, 'created_at'>[];
        // Compared by cursor and message only: the times (Dates through TypeORM) are left out.
        const tail = rows.map((row) => messageEntry(this.sessionId, { ...row, created_at: null }));
        if (!stillCovers(tail, covers, upTo)) return null;
      }
      const stored = storedSnapshot({ ...snapshot, pinned }, upTo, new Date());
      // The delete trigger then takes the pruned rows from `stored` but keeps the snapshot.
      if (prune) await tx.query(OWN_DELETE);
      const value = JSON.stringify(
        stored.pinned
          ? { summary: stored.summary, pinned: stored.pinned }
          : { summary: stored.summary },
      );
      await tx.query(this.sql.swapSnapshot, [this.sessionId, upTo, value, stored.createdAt, prune]);
      return stored;
    });
  }

  /**
   * See `CoveredLogPruning`: deletes the rows the snapshot covers, under the session's lock.
   * @throws PostgresRequestError when the database does not answer.
   */
  async pruneCovered(opts?: PruneCoveredOptions): Promise<number> {
    throwIfAborted(opts);
    const expected = opts?.ifUnchanged;
    const dropped = await pgRequest('prune covered messages', this.sessionId, () =>
      this.dataSource.transaction(async (tx) => {
        await tx.query(this.sql.lockSession, [this.sessionId]);
        if (expected) {
          // Under the session lock saves take and the row lock a metadata write needs.
          const [row] = (await tx.query(this.sql.sessionFactsForUpdate, [this.sessionId])) as {
            saved: string;
            stored: string;
            updated_at: string;
            meta: Record<string, string>;
            upto_seq: string | null;
          }[];
          const current =
            row &&
            sessionInfo(this.sessionId, {
              saved: Number(row.saved),
              stored: Number(row.stored),
              updatedAt: row.updated_at,
              snapshotUpTo: row.upto_seq === null ? null : Number(row.upto_seq),
              meta: row.meta,
            });
          if (!current || !sameSessionState(current, expected)) return -1;
        }
        // The delete trigger then takes the pruned rows from `stored` (and stamps `updated_at`)
        // but keeps the snapshot and the count saved.
        await tx.query(OWN_DELETE);
        const [{ dropped }] = (await tx.query(this.sql.pruneCovered, [this.sessionId])) as [
          { dropped: string },
        ];
        return Number(dropped);
      }),
    );
    if (dropped < 0) throw new SessionChangedError(this.sessionId);
    return dropped;
  }

  async setMeta(key: string, value: string): Promise<void> {
    assertMetaEntry(key, value);
    await pgRequest('set metadata', this.sessionId, () =>
      this.query(value === '' ? this.sql.removeMeta : this.sql.setMeta, [
        this.sessionId,
        key,
        ...(value === '' ? [] : [value]),
      ]),
    );
  }

  async meta(): Promise<Record<string, string>> {
    const rows = (await pgRequest('read metadata', this.sessionId, () =>
      this.query(this.sql.meta, [this.sessionId]),
    )) as {
      meta: Record<string, string>;
    }[];
    return { ...(rows[0]?.meta ?? {}) };
  }
}
