import { sameSessionState, sessionInfo } from '../core/session-info';
import { assertDescribes } from '../core/session-delete';
import { SessionChangedError } from '../core/errors';
import { DataSource } from 'typeorm';
import {
  RESOURCE_META_KEY,
  type DeleteSessionOptions,
  type EraseQuery,
  type EraseResult,
  type MemoryBackend,
  type SessionInfo,
  type SessionPage,
  type ListSessionsQuery,
} from '../core/backend.interface';
import { nothingErased } from '../core/resource-erase';
import { legacySummaryPolicy } from '../core/legacy-summarization';
import { assertSessionId } from '../core/session-id';
import { assertResource, decodeListToken, encodeListToken, listLimit } from '../core/session-list';
import { preparedQuery } from './postgres-prepared';
import { ensureMemorySchema, memorySchemaStatus, type MemorySchemaStatus } from './memory-schema';
import { memoryTableNames, sessionLockKeySql, type MemoryTableNames } from './memory-table-names';
import { pgRequest } from '../pg-errors/postgres-request.error';
import {
  assertOneOfOptions,
  assertOptionsObject,
  assertStringOption,
  assertWholeNumberOption,
} from '../core/factory-options';
import { PostgresMemory, type PostgresMemoryOptions } from './postgres.store';
import {
  DEFAULT_PG_CONNECT_TIMEOUT_MS,
  DEFAULT_PG_POOL_SIZE,
  DEFAULT_PG_STATEMENT_TIMEOUT_MS,
} from './postgres.defaults';
import { compactionJobsTable } from './postgres-compaction-job.store';
import type { CheckpointStorage } from '../core/checkpoint-storage.interface';
import { removingThreads } from '../core/thread-cleanup';
import { PostgresCheckpointStorage } from './postgres-checkpoint.storage';

export {
  DEFAULT_PG_CONNECT_TIMEOUT_MS,
  DEFAULT_PG_STATEMENT_TIMEOUT_MS,
} from './postgres.defaults';

/** What every store of the backend is opened with (documented on {@link PostgresMemoryOptions}). */
type PostgresBackendCommonOptions = Pick<
  PostgresMemoryOptions,
  | 'table'
  | 'ensureSchema'
  | 'pruneCompacted'
  | 'preparedStatements'
  | 'earlyLockRelease'
  | 'summarization'
>;

/** Options of `postgresBackend`: a `url` (the backend opens and closes its pool) or a `dataSource` of yours. */
export type PostgresBackendOptions = PostgresBackendCommonOptions &
  (
    | {
        /** A `postgres://` URL: the backend opens a DataSource of its own and destroys it on `close()`. */
        url: string;
        /** Wait for a new connection, in ms. Default {@link DEFAULT_PG_CONNECT_TIMEOUT_MS}. */
        connectTimeoutMs?: number;
        /** `statement_timeout` of its connections, in ms. Default {@link DEFAULT_PG_STATEMENT_TIMEOUT_MS}. */
        statementTimeoutMs?: number;
        /** Connections in its pool. Default {@link DEFAULT_PG_POOL_SIZE}. */
        poolSize?: number;
        dataSource?: never;
      }
    | {
        /** A DataSource the caller owns (initialised here if it is not yet); `close()` leaves it open. */
        dataSource: DataSource;
        url?: never;
      }
  );

/** The PostgreSQL backend: the port plus what a health indicator needs. */
export interface PostgresBackend extends MemoryBackend {
  readonly kind: 'postgres';
  readonly dataSource: DataSource;
  /** The validated table names. */
  readonly tables: MemoryTableNames;
  /** The LangGraph checkpoints of its threads (`@agent-memory/memory/langgraph`), in `<table>_lg_*`. */
  readonly checkpointStorage: CheckpointStorage;
  /**
   * Whether the tables, columns and triggers the store needs exist, whoever ran the migrations and
   * wherever they were recorded (`ensureSchema`, the CLI, or the app's DataSource).
   */
  migrationsApplied(): Promise<boolean>;
  /** The same check, with what is missing. */
  schemaStatus(): Promise<MemorySchemaStatus>;
}

interface SessionRow {
  session_id: string;
  saved: string;
  stored: string;
  /** ISO 8601 (see `isoTimestamps`). */
  updated_at: string;
  meta: Record<string, string>;
  upto_seq: string | null;
}

/**
 * Sessions in PostgreSQL ({@link PostgresMemory}). `list` is one keyset query on the sessions
 * table's `(updated_at desc, session_id)` index; `search` is `ILIKE` on the id or `meta->>'title'`.
 * @throws RangeError before any SQL when `table` or `summarization` is invalid.
 * @throws PostgresRequestError when the database cannot be reached or the migrations fail.
 */
export async function postgresBackend(options: PostgresBackendOptions): Promise<PostgresBackend> {
  checkPostgresBackendOptions(options);
  const tables = memoryTableNames(options.table);
  // Prepared (and checked) once here, so that a bad option fails at start-up, not on an open.
  const summaryPolicy = legacySummaryPolicy(options.summarization);
  const owned = options.url !== undefined;
  const dataSource = owned
    ? new DataSource({
        type: 'postgres',
        url: options.url,
        connectTimeoutMS: options.connectTimeoutMs ?? DEFAULT_PG_CONNECT_TIMEOUT_MS,
        poolSize: options.poolSize ?? DEFAULT_PG_POOL_SIZE,
        extra: { statement_timeout: options.statementTimeoutMs ?? DEFAULT_PG_STATEMENT_TIMEOUT_MS },
        synchronize: false,
        logging: false,
      })
    : options.dataSource;
  try {
    if (!dataSource.isInitialized) await pgRequest('connect', null, () => dataSource.initialize());
    if (options.ensureSchema ?? true) {
      await pgRequest('run the migrations', null, () =>
        ensureMemorySchema(dataSource, options.table),
      );
    }
  } catch (error) {
    if (owned && dataSource.isInitialized) await dataSource.destroy();
    throw error;
  }
  const storeOptions = {
    table: options.table,
    ensureSchema: false,
    pruneCompacted: options.pruneCompacted,
    preparedStatements: options.preparedStatements,
    earlyLockRelease: options.earlyLockRelease,
    summaryPolicy,
  };
  const sql = statements(tables);
  const prepared = options.preparedStatements ?? true;

  const checkpointStorage = new PostgresCheckpointStorage(dataSource, tables, {
    preparedStatements: prepared,
  });
  return removingThreads<PostgresBackend>({
    kind: 'postgres',
    dataSource,
    tables,
    checkpointStorage,
    open: (sessionId) => PostgresMemory.open(dataSource, sessionId, storeOptions),

    async list(q: ListSessionsQuery): Promise<SessionPage> {
      const limit = listLimit(q);
      const after = q.after ? decodeListToken(q.after) : null;
      const search = q.search ? `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
      const rows = (await pgRequest('list sessions', null, () =>
        // The newest page without a search (what the dashboard opens on) has a statement of its
        // own: a plain walk down the listing index, prepared once per connection and page size.
        search === null && after === null && q.resource === undefined
          ? preparedQuery(dataSource, sql.newest(limit + 1), [], prepared)
          : // Planned on each call: a generic plan of its optional filters could not pick the index.
            preparedQuery(
              dataSource,
              sql.list,
              [search, after?.updatedAt ?? null, after?.id ?? null, limit + 1, q.resource ?? null],
              false,
            ),
      )) as SessionRow[];
      const items = rows.slice(0, limit).map(infoOfRow);
      const last = items[items.length - 1];
      return { items, next: rows.length > limit && last ? encodeListToken(last) : null };
    },

    /**
     * One transaction: finds the resource's sessions, takes their session locks (the ones saves
     * take, so a save in flight finishes first and a later one waits, then starts a new session),
     * and deletes their messages, snapshots and rows (metadata and idempotency keys) in one
     * statement that checks the resource again, then their compaction jobs (`<table>_jobs`).
     */
    async erase(q: EraseQuery): Promise<EraseResult> {
      assertResource(q?.resource);
      const { resource } = q;
      return pgRequest('erase', null, () =>
        dataSource.transaction(async (tx) => {
          const found = (await tx.query(sql.resourceSessions, [resource])) as {
            session_id: string;
          }[];
          if (found.length === 0) return nothingErased();
          const ids = found.map((row) => row.session_id);
          await tx.query(sql.lockSessions, [ids]);
          const [row] = (await tx.query(sql.erase, [ids, resource])) as [
            { ids: string[]; messages: string },
          ];
          await tx.query(sql.eraseJobs, [row.ids]);
          return {
            sessions: row.ids.length,
            messages: Number(row.messages),
            vectors: 0,
            sessionIds: row.ids,
          };
        }),
      );
    },

    async inspect(sessionId: string): Promise<SessionInfo | null> {
      assertSessionId(sessionId);
      const rows = (await pgRequest('inspect', sessionId, () =>
        preparedQuery(dataSource, sql.inspect, [sessionId], prepared),
      )) as SessionRow[];
      return rows[0] ? infoOfRow(rows[0]) : null;
    },

    /**
     * With `ifUnchanged`: one transaction takes the session lock saves take and the session's row
     * (which a metadata write needs), reads the session and deletes it only if it is unchanged.
     */
    async delete(sessionId: string, opts?: DeleteSessionOptions): Promise<void> {
      assertSessionId(sessionId);
      const expected = opts?.ifUnchanged;
      if (!expected) {
        await (await PostgresMemory.open(dataSource, sessionId, storeOptions)).clear();
        return;
      }
      assertDescribes(sessionId, expected);
      const deleted = await pgRequest('delete', sessionId, () =>
        dataSource.transaction(async (tx) => {
          await tx.query(sql.lockSessions, [[sessionId]]);
          const [row] = (await tx.query(sql.inspectForUpdate, [sessionId])) as SessionRow[];
          if (!row || !sameSessionState(infoOfRow(row), expected)) return false;
          await tx.query(sql.deleteOne, [sessionId]);
          return true;
        }),
      );
      if (!deleted) throw new SessionChangedError(sessionId);
    },

    async check(): Promise<void> {
      await pgRequest('check', null, () => dataSource.query('SELECT 1'));
    },

    migrationsApplied: async () =>
      (
        await pgRequest('read the schema', null, () =>
          memorySchemaStatus(dataSource, options.table),
        )
      ).ready,

    schemaStatus: () =>
      pgRequest('read the schema', null, () => memorySchemaStatus(dataSource, options.table)),

    async close(): Promise<void> {
      if (owned && dataSource.isInitialized) await dataSource.destroy();
    },
  });
}

function infoOfRow(row: SessionRow): SessionInfo {
  return sessionInfo(row.session_id, {
    saved: Number(row.saved),
    stored: Number(row.stored),
    updatedAt: row.updated_at,
    snapshotUpTo: row.upto_seq === null ? null : Number(row.upto_seq),
    meta: row.meta,
  });
}

function statements(names: MemoryTableNames) {
  const { messages, snapshots, sessions } = names;
  // `snapshot_upto` mirrors the snapshots table (a trigger keeps it): one table to read.
  const columns = `s.session_id, s.saved, s.stored, s.updated_at, s.meta, s.snapshot_upto AS upto_seq
    FROM ${sessions} s`;
  return {
    inspect: `SELECT ${columns} WHERE s.session_id = $1`,
    inspectForUpdate: `SELECT ${columns} WHERE s.session_id = $1 FOR UPDATE`,
    deleteOne: `WITH gone_messages AS (DELETE FROM ${messages} WHERE session_id = $1),
      gone_snapshot AS (DELETE FROM ${snapshots} WHERE session_id = $1)
      DELETE FROM ${sessions} WHERE session_id = $1`,
    // The row count is written into the text (a whole number from `listLimit`): with a `LIMIT $1`
    // PostgreSQL never keeps a generic plan and plans the statement again at every call.
    newest: (rows: number) =>
      `SELECT ${columns} ORDER BY s.updated_at DESC, s.session_id LIMIT ${Math.trunc(rows)}`,
    // Newest first, ties by id: the page after (t, id) is updated_at < t, or = t with a greater id.
    list: `SELECT ${columns}
      WHERE ($1::text IS NULL OR s.session_id ILIKE $1 OR s.meta->>'title' ILIKE $1)
        AND ($2::timestamptz IS NULL OR s.updated_at < $2::timestamptz
             OR (s.updated_at = $2::timestamptz AND s.session_id > $3::text))
        AND ($5::text IS NULL OR s.meta->>'${RESOURCE_META_KEY}' = $5::text)
      ORDER BY s.updated_at DESC, s.session_id
      LIMIT $4`,
    resourceSessions: `SELECT session_id FROM ${sessions}
      WHERE meta->>'${RESOURCE_META_KEY}' = $1 ORDER BY session_id`,
    // In id order, so that two erases of one resource cannot deadlock.
    lockSessions: `SELECT count(pg_advisory_xact_lock(${sessionLockKeySql(names, 'id')}))
      FROM (SELECT id FROM unnest($1::text[]) AS id ORDER BY id) AS ids`,
    eraseJobs: `DELETE FROM ${compactionJobsTable(names)} WHERE job->>'sessionId' = ANY($1::text[])`,
    // Checked again under the locks: a session whose resource changed meanwhile is left alone.
    erase: `WITH target AS (
        SELECT session_id FROM ${sessions}
        WHERE session_id = ANY($1::text[]) AND meta->>'${RESOURCE_META_KEY}' = $2
      ),
      gone_messages AS (
        DELETE FROM ${messages} m USING target t WHERE m.session_id = t.session_id RETURNING 1
      ),
      gone_snapshots AS (
        DELETE FROM ${snapshots} sn USING target t WHERE sn.session_id = t.session_id
      ),
      gone_sessions AS (
        DELETE FROM ${sessions} s USING target t WHERE s.session_id = t.session_id
        RETURNING s.session_id
      )
      SELECT coalesce((SELECT array_agg(session_id ORDER BY session_id) FROM gone_sessions), '{}')
          AS ids,
        (SELECT count(*) FROM gone_messages) AS messages`,
  };
}

/** Names the missing or bad option before anything is opened. */
function checkPostgresBackendOptions(options: PostgresBackendOptions): void {
  const factory = 'postgresBackend';
  assertOptionsObject(factory, options);
  assertOneOfOptions(
    factory,
    options,
    ['url', 'dataSource'],
    'a postgres:// URL, or a TypeORM DataSource of yours',
  );
  if (options.url !== undefined) {
    assertStringOption(factory, 'url', options.url);
    assertWholeNumberOption(factory, 'connectTimeoutMs', options.connectTimeoutMs, 1);
    assertWholeNumberOption(factory, 'statementTimeoutMs', options.statementTimeoutMs, 0);
    assertWholeNumberOption(factory, 'poolSize', options.poolSize, 1);
  } else if (typeof (options.dataSource as Partial<DataSource>).initialize !== 'function') {
    throw new TypeError(`${factory}: "dataSource" must be a TypeORM DataSource`);
  }
  if (options.table !== undefined) assertStringOption(factory, 'table', options.table);
}
