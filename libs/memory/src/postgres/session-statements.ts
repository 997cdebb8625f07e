import { KEEP_LOG_META_KEY } from '../core/kept-log';
import { NOW_MS } from './sql-now';
import { sessionLockKeySql, type MemoryTableNames } from './memory-table-names';
import { saveOneStatementSql } from './save-one-statement';
import { saveStatementSql, trimKeysSql } from './save-statement';

/**
 * Marks the transaction's deletes as the store's own (pruning), so the delete
 * trigger does not take a session left with no rows for a `Clear` by another writer.
 */
export const OWN_DELETE = "SELECT set_config('agent_memory.own_delete', 'on', true)";

/** The SQL a `PostgresMemory` runs, for one set of tables. */
export type SessionStatements = ReturnType<typeof statements>;

/**
 * The statements of a table set, built once per table: sessions are opened per request, and
 * their SQL depends on nothing but the table names. Few distinct tables exist in a process.
 */
const statementsByTable = new Map<string, ReturnType<typeof statements>>();

/** The statements of the tables `names`, built on first use. */
export function statementsFor(names: MemoryTableNames): SessionStatements {
  let built = statementsByTable.get(names.table);
  if (!built) {
    built = statements(names);
    statementsByTable.set(names.table, built);
  }
  return built;
}

/** The statements of one set of tables; identifiers were validated by `memoryTableNames`. */
function statements(names: MemoryTableNames) {
  const { messages, snapshots, sessions, keys, functions } = names;
  const lock = `pg_advisory_xact_lock(${sessionLockKeySql(names, '$1')})`;
  const tryLock = `pg_try_advisory_xact_lock(${sessionLockKeySql(names, '$1')})`;
  // A session that keeps its whole log (see KEEP_LOG_META_KEY) loses nothing to pruning.
  const keepsWholeLog = `EXISTS (SELECT 1 FROM ${sessions}
    WHERE session_id = $1 AND (meta ->> '${KEEP_LOG_META_KEY}') IS NOT NULL)`;
  // Without the procedure (tables older than its migration) the lock counts as taken: the
  // save then calls it and fails as not migrated, so no save succeeds only when uncontended.
  // The procedure is looked up by name alone: `to_regprocedure` parses each argument type with
  // the SQL parser on every call.
  const tryLockIfMigrated = `to_regproc('${functions.saveGroup}') IS NOT NULL AND ${tryLock}`;
  return {
    // The save of a group of batches, waiting for the lock: see `saveStatementSql` and the
    // MoveIdempotencyKeys migration. With early release ($6) it may commit in the middle, so it
    // runs outside a transaction.
    saveGroupCall: `CALL ${functions.saveGroup}($1, $2::jsonb, $3::int[], $4::text[], $5::text[], $6)`,
    // The lone writer's save, the procedure's work as one plain statement (no CALL, no plpgsql):
    // the lock is tried once (a materialised CTE, evaluated before anything reads it), and only
    // when it was free are the keys checked and recorded, the rows inserted and counted, then
    // committed as usual: durable before it answers. `locked` false: nothing was written,
    // another writer holds the lock; the caller then goes through the procedure, which waits.
    saveIfLockFree: saveStatementSql(
      names,
      {
        session: '$1',
        messages: '$2::jsonb',
        batchOfMessage: '$3::int[]',
        keys: '$4::text[]',
        digests: '$5::text[]',
      },
      tryLockIfMigrated,
    ),
    // The same for a group of one batch, keyed or not, without the work only several batches need.
    saveOneIfLockFree: saveOneStatementSql(names, tryLockIfMigrated),
    idempotencyKey: `SELECT first_seq, last_seq FROM ${keys} WHERE session_id = $1 AND key = $2`,
    trimKeys: trimKeysSql(names),
    context: `WITH snap AS (
        SELECT upto_seq, snapshot, created_at FROM ${snapshots} WHERE session_id = $1
      )
      SELECT NULL::bigint AS seq, NULL::jsonb AS message, upto_seq, snapshot, created_at FROM snap
      UNION ALL
      SELECT m.seq, m.message, NULL, NULL, m.created_at FROM ${messages} m
      WHERE m.session_id = $1 AND m.seq > COALESCE((SELECT upto_seq FROM snap), 0)
      ORDER BY seq NULLS FIRST`,
    // LIMIT NULL is no limit.
    entriesPage: `SELECT seq, message, created_at FROM ${messages} WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    lockSession: `SELECT ${lock}`,
    // Only the rows of one batch, just inserted under the session's lock.
    setSavedAt: `UPDATE ${messages} SET created_at = $4::timestamptz
      WHERE session_id = $1 AND seq BETWEEN $2 AND $3`,
    snapshotState: `SELECT
        (SELECT upto_seq FROM ${snapshots} WHERE session_id = $1) AS upto_seq,
        (SELECT max(seq) FROM ${messages} WHERE session_id = $1) AS last_seq`,
    // The delete trigger takes the pruned rows from the session's `stored`.
    swapSnapshot: `WITH snap AS (
        INSERT INTO ${snapshots} (session_id, upto_seq, snapshot, created_at)
        VALUES ($1, $2, $3::jsonb, $4::timestamptz)
        ON CONFLICT (session_id) DO UPDATE
          SET upto_seq = excluded.upto_seq, snapshot = excluded.snapshot, created_at = excluded.created_at
      ),
      pruned AS (
        DELETE FROM ${messages} WHERE $5::boolean AND session_id = $1 AND seq <= $2
          AND NOT ${keepsWholeLog}
      )
      UPDATE ${sessions} SET updated_at = ${NOW_MS} WHERE session_id = $1`,
    clear: `WITH gone_messages AS (DELETE FROM ${messages} WHERE session_id = $1),
      gone_snapshot AS (DELETE FROM ${snapshots} WHERE session_id = $1)
      DELETE FROM ${sessions} WHERE session_id = $1`,
    setMeta: `INSERT INTO ${sessions} AS s (session_id, meta, updated_at)
      VALUES ($1, jsonb_build_object($2::text, $3::text), ${NOW_MS})
      ON CONFLICT (session_id) DO UPDATE
        SET meta = s.meta || excluded.meta, updated_at = excluded.updated_at`,
    removeMeta: `UPDATE ${sessions} SET meta = meta - $2::text, updated_at = ${NOW_MS} WHERE session_id = $1`,
    meta: `SELECT meta FROM ${sessions} WHERE session_id = $1`,
    // What `inspect` reads of a session, its row locked (see the backend's statements).
    sessionFactsForUpdate: `SELECT saved, stored, updated_at, meta, snapshot_upto AS upto_seq
      FROM ${sessions} WHERE session_id = $1 FOR UPDATE`,
    pruneCovered: `WITH pruned AS (
        DELETE FROM ${messages} WHERE session_id = $1
          AND seq <= (SELECT upto_seq FROM ${snapshots} WHERE session_id = $1)
          AND NOT ${keepsWholeLog}
        RETURNING 1
      )
      SELECT count(*) AS dropped FROM pruned`,
  };
}
